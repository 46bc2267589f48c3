//go:build !linux

package profile

import "time"

func peakKB() (int64, bool) { return 0, false }

func resetPeak() {}

func cpuTime() time.Duration { return 0 }
