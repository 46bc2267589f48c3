package rulefile

import (
	"os"
	"testing"

	"forensics"
	"forensics/rules/ruletest"
)

// Any file either loads or is refused with positioned errors, and a rule
// that loads runs over a small timeline without failing.
func FuzzParse(f *testing.F) {
	f.Add([]byte(rule))
	if data, err := os.ReadFile("../diskfull/cb-disk-full.yaml"); err == nil {
		f.Add(data)
	}
	evs := []forensics.Event{
		slow("n1", 0, "GET", "2"), slow("n1", 10, "SET", "3"), slow("n1", 20, "GET", "4"),
		ev("test.restart", "n1", 30, "service", "memcached", "pid", "1"), ev("test.ok", "n1", 40, "service", "kv"),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data, vocab)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		ruletest.Run(t, file.Rule, evs)
	})
}
