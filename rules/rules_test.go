package rules

import (
	"testing"

	"forensics"
)

// Every rule declares its subject's details once each, as CheckDetails
// wants them.
func TestDetailsDeclared(t *testing.T) {
	for _, r := range All() {
		if err := forensics.CheckDetails(r.Details); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}
