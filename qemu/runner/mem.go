// The guest's default RAM.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// AutoMem is the -m the command uses unless told: a quarter of the host's available memory
// (availKiB, /proc/meminfo's MemAvailable), rounded down to 256 MiB, at least 1 GiB and at most
// 8 GiB. QEMU only backs what the guest touches, so a large figure costs the host nothing until
// the program uses it, and boot time does not depend on it (1, 4 and 8 GiB boot alike); with
// the old fixed 1 GiB, a program holding 700 MB ran out (Go's collector needs room to work).
// availKiB 0 (unknown) gives 1 GiB.
func AutoMem(availKiB uint64) string {
	const mib = 1024
	m := availKiB / 4 / mib // MiB
	m -= m % 256
	m = max(m, 1024)
	m = min(m, 8192)
	return strconv.FormatUint(m, 10) + "M"
}

// HostAvailableKiB reads MemAvailable from /proc/meminfo; 0 if it cannot.
func HostAvailableKiB() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			v, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return 0
}
