// Command datarule measures a rule written as data against a Go rule of
// the same logic, over the same timeline, read the same way (driver.Run on
// the store's Timeline): the rule file stream-storm.yaml and its Go twin
// below, a sliding-window count over memcached.stream_created, the busiest
// kind of a churning bundle. It checks that both find the same and prints
// the median CPU time of each and their ratio.
//
//	go run ./bench/datarule -db TIMELINE [-runs 5]
//
// bench/datarules.sh makes the bundle and the timeline.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"forensics"
	"forensics/parsers"
	"forensics/parsers/memcached"
	"forensics/rules/driver"
	"forensics/rules/rulefile"
	"forensics/store"
	"forensics/store/backends"
)

//go:embed stream-storm.yaml
var ruleFile []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "datarule:", err)
		os.Exit(1)
	}
}

func run() error {
	db := flag.String("db", "", "the timeline to read")
	runs := flag.Int("runs", 5, "runs of each rule")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the rule file's runs to this file")
	flag.Parse()
	f, err := rulefile.Parse("stream-storm.yaml", ruleFile, rulefile.Vocab(parsers.Kinds()))
	if err != nil {
		return err
	}
	r, err := backends.OpenReader(*db)
	if err != nil {
		return err
	}
	defer r.Close()
	ctx := context.Background()
	latest, err := r.LatestRun(ctx)
	if err != nil {
		return err
	}
	tl := store.Timeline(r, latest)
	// once runs a rule and returns its CPU time (the whole process's: the
	// store's reading and the rule's work), which the other processes of a
	// busy machine change less than the wall time.
	once := func(rule *forensics.Rule) (time.Duration, []forensics.Finding, error) {
		before := cpu()
		fs, errs := driver.Run(ctx, tl, []*forensics.Rule{rule})
		if len(errs) > 0 {
			return 0, nil, errs[0]
		}
		return cpu() - before, fs, nil
	}
	if *profile != "" {
		pf, err := os.Create(*profile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	// The two take turns, so that neither gets the warmer cache or the
	// quieter machine.
	var goTimes, dataTimes []time.Duration
	var goFound, dataFound []forensics.Finding
	for range *runs {
		t, fs, err := once(goRule)
		if err != nil {
			return err
		}
		goTimes, goFound = append(goTimes, t), fs
		if t, fs, err = once(f.Rule); err != nil {
			return err
		}
		dataTimes, dataFound = append(dataTimes, t), fs
	}
	goTime, dataTime := median(goTimes), median(dataTimes)
	if a, b := describe(goFound), describe(dataFound); a != b {
		return fmt.Errorf("the rules disagree:\nGo:\n%s\ndata:\n%s", a, b)
	}
	fmt.Printf("| rule | CPU time, median of %d runs | findings |\n|---|--:|--:|\n", *runs)
	fmt.Printf("| Go rule | %s | %d |\n", goTime.Round(time.Millisecond), len(goFound))
	fmt.Printf("| rule file | %s | %d |\n", dataTime.Round(time.Millisecond), len(dataFound))
	fmt.Printf("\nrule file / Go rule: %.2f\n", float64(dataTime)/float64(goTime))
	return nil
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ts []time.Duration) time.Duration {
	slices.Sort(ts)
	return ts[len(ts)/2]
}

func describe(fs []forensics.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s %s %d evidence\n", f.Start.Format(time.RFC3339Nano), f.End.Format(time.RFC3339Nano), f.Severity, f.Title, len(f.Evidence))
	}
	return b.String()
}

// goRule is the rule file's logic written as a Go rule would be: one
// cursor in timeline order, a window of times per group, an episode's
// events kept while it lasts.
var goRule = &forensics.Rule{
	Name:  "bench-stream-storm",
	Doc:   forensics.Doc{Title: "DCP streams opened by the hundred in a minute"},
	Kinds: []forensics.Kind{memcached.StreamCreated},
	Run:   runStorm,
}

const (
	stormCount  = 100
	stormWindow = time.Minute
)

type stormGroup struct {
	node, bucket, kind string
	window             []*forensics.Event // the events of the last minute
	episode            []*forensics.Event // the events of the storm under way
}

func runStorm(p *forensics.Pass) error {
	groups := map[string]*stormGroup{}
	var order []*stormGroup
	for e, err := range p.Events() {
		if err != nil {
			return err
		}
		kind := e.Attr(memcached.AttrConsumerKind)
		key := e.Node + "\x00" + e.Bucket + "\x00" + kind
		g := groups[key]
		if g == nil {
			g = &stormGroup{node: e.Node, bucket: e.Bucket, kind: kind}
			groups[key] = g
			order = append(order, g)
		}
		g.window = append(g.window, e)
		for e.Time.Sub(g.window[0].Time) > stormWindow {
			g.window = g.window[1:]
		}
		if len(g.window) < stormCount {
			continue
		}
		// Hot: the window joins the storm under way when they overlap.
		if n := len(g.episode); n > 0 && forensics.Compare(g.window[0], g.episode[n-1]) > 0 {
			p.Report(storm(g))
			g.episode = nil
		}
		for _, w := range g.window {
			if n := len(g.episode); n == 0 || forensics.Compare(w, g.episode[n-1]) > 0 {
				g.episode = append(g.episode, w)
			}
		}
	}
	for _, g := range order {
		if len(g.episode) > 0 {
			p.Report(storm(g))
		}
	}
	return nil
}

func storm(g *stormGroup) forensics.Finding {
	evs := g.episode
	first, last := evs[0], evs[len(evs)-1]
	counts := map[string]int{}
	var names []string
	for _, e := range evs {
		c := e.Attr(memcached.AttrConsumer)
		if c == "" {
			continue
		}
		if counts[c] == 0 {
			names = append(names, c)
		}
		counts[c]++
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	var top []string
	for _, n := range names[:min(3, len(names))] {
		top = append(top, fmt.Sprintf("%s (%d)", n, counts[n]))
	}
	return forensics.Finding{
		Severity:    forensics.Low,
		Title:       fmt.Sprintf("%d DCP streams opened for %s on %s by %s", len(evs), g.bucket, g.node, g.kind),
		Explanation: fmt.Sprintf("From %s to %s: mostly %s.", clock(first.Time), clock(last.Time), strings.Join(top, ", ")),
		Subject:     forensics.FindingSubject{Node: g.node, Bucket: g.bucket, Service: g.kind},
		Start:       first.Time,
		End:         last.Time,
		Evidence: []forensics.Evidence{
			forensics.EvidenceOf(first, "the first stream of the storm"),
			forensics.EvidenceOf(last, "the last stream of the storm"),
		},
	}
}

func clock(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return t.Format("15:04:05.000000Z")
	}
	return t.Format("15:04:05.000Z")
}
