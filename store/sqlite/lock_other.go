//go:build !unix

package sqlite

// lockWriter has no cross-process lock where flock is missing; SQLite's
// busy timeout is then all that orders two writers.
func lockWriter(path string) (func(), error) { return func() {}, nil }

// onReadOnlyMedia is not known here; the read-only open's error stands.
func onReadOnlyMedia(path string) bool { return false }
