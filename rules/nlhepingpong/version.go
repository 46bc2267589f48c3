package nlhepingpong

import (
	"regexp"
	"strings"

	"forensics"
	"forensics/parsers/crdb"
)

// era is the range of CockroachDB versions whose wording the DistSender
// lines of an episode have (FORMATS.md B3, B4). It decides which upgrade
// advice and which lease-moving statement apply.
type era int

const (
	eraUnknown  era = iota
	eraV1           // ≤ v1.1: "[NotLeaseHolderError] range 52: …"
	eraV20          // v2.0: "error: {(err: …) <nil>}; trying next peer …" (the seed)
	eraV21To201     // v2.1–v20.1: "error: (err: …) <nil>; trying next peer …"
	eraV202         // v20.2: bare "trying next peer …"
	eraV211         // v21.1+: a reason before the range, "lease held by different store; r73: …"
)

var oldRange = regexp.MustCompile(`\[NotLeaseHolderError\] range \d+: replica`)

// eraOf reads the wording of the episode's redirects and of the retry lines
// of the same requests. It returns the latest era the wording proves.
func eraOf(ep *episode, evs []forensics.Event) era {
	e := eraUnknown
	traces := map[string]bool{}
	for _, r := range ep.redirects() {
		traces[r.trace] = true
		switch {
		case r.ev.Attr(crdb.AttrReason) != "":
			e = max(e, eraV211)
		case oldRange.MatchString(r.ev.Text):
			e = max(e, eraV1)
		}
	}
	for i := range evs {
		ev := &evs[i]
		if ev.Kind != crdb.KindNextPeer || ev.Range != ep.rng || !traces[ev.Attr(crdb.AttrTrace)] {
			continue
		}
		if ev.Time.Before(ep.start) || ev.Time.After(ep.end) {
			continue
		}
		switch t := ev.Text; {
		case strings.Contains(t, "error: {(err: "):
			e = max(e, eraV20)
		case strings.Contains(t, "error: (err: "):
			e = max(e, eraV21To201)
		case strings.Contains(t, "trying next peer") && !strings.Contains(t, "error"):
			e = max(e, eraV202)
		}
	}
	return e
}

func (e era) String() string {
	switch e {
	case eraV1:
		return "v1.1 or earlier"
	case eraV20:
		return "v2.0"
	case eraV21To201:
		return "v2.1 to v20.1"
	case eraV202:
		return "v20.2 or later"
	case eraV211:
		return "v21.1 or later"
	}
	return "unknown"
}

// hasBackoff reports whether the version already has DistSender's backoff
// on NotLeaseHolderError during lease transfers (v19.1, #32877), when the
// wording tells: v2.1–v20.1 wording spans versions before and after it.
func (e era) hasBackoff() (has, known bool) {
	switch e {
	case eraV1, eraV20:
		return false, true
	case eraV202, eraV211:
		return true, true
	}
	return false, false
}
