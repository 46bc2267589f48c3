//go:build !linux

package phase

import "time"

func peakKB() (int64, bool) { return 0, false }

func resetPeak() {}

func cpuTime() time.Duration { return 0 }
