package cbevidence

import "testing"

func TestValidNames(t *testing.T) {
	for _, h := range []string{"10.20.0.12", "cb-01.prod.example.net", "[fd00::12]", "localhost"} {
		if !ValidHost(h) {
			t.Errorf("ValidHost(%q) = false", h)
		}
	}
	for _, h := range []string{"", "a b", "a;rm -rf /", "$(x)", "-a.example", "a..b", "[fd00::12", "cb'01"} {
		if ValidHost(h) {
			t.Errorf("ValidHost(%q) = true", h)
		}
	}
	for _, b := range []string{"travel-sample", "orders_2024", "a.b", "50%"} {
		if !ValidBucket(b) {
			t.Errorf("ValidBucket(%q) = false", b)
		}
	}
	for _, b := range []string{"", ".hidden", "a b", "a/b", "x'y"} {
		if ValidBucket(b) {
			t.Errorf("ValidBucket(%q) = true", b)
		}
	}
	if HostOr("ns_1@a;b") != "HOST" || HostOr("ns_1@10.0.0.1") != "10.0.0.1" || BucketOr("../x") != "BUCKET" {
		t.Error("placeholders")
	}
}
