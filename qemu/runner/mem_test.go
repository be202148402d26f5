// SPDX-License-Identifier: BSD-3-Clause

package runner

import "testing"

func TestAutoMem(t *testing.T) {
	for kib, want := range map[uint64]string{
		0:                 "1024M",
		2 << 20:           "1024M", // 2 GiB available: the floor
		24208172:          "5888M", // this machine: 23.1 GiB available
		10 << 20:          "2560M",
		100 << 20:         "8192M", // the ceiling
		(4<<20 + 300<<10): "1024M",
	} {
		if got := AutoMem(kib); got != want {
			t.Errorf("AutoMem(%d KiB) = %s, want %s", kib, got, want)
		}
	}
	if HostAvailableKiB() == 0 {
		t.Error("no MemAvailable in /proc/meminfo")
	}
}
