package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The command scripts in testdata/script run forensics as a user would, on
// the bundled incidents ($TESTDATA), and compare its output with the
// expected output kept in each script (rewritten with -update).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"forensics": func() { limitMemory(); os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", testdata)
			env.Setenv("SEED", filepath.Join(testdata, "couchbase", "seed"))
			return nil
		},
	})
}
