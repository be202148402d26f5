// SPDX-License-Identifier: BSD-3-Clause

package vfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkUnpackZoneinfo unpacks an archive shaped like the runner's: the host's zoneinfo
// (about 600 entries in a few dozen directories), as every boot does (kernel/fs_boot.go).
func BenchmarkUnpackZoneinfo(b *testing.B) {
	const root = "/usr/share/zoneinfo"
	var entries [][]byte
	entries = append(entries, cpioEntry("usr", SIFDIR|0o755, ""), cpioEntry("usr/share", SIFDIR|0o755, ""))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("/", p)
		switch {
		case d.Name() == "posix" || d.Name() == "right":
			return filepath.SkipDir
		case d.IsDir():
			entries = append(entries, cpioEntry(rel, SIFDIR|0o755, ""))
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entries = append(entries, cpioEntry(rel, SIFREG|0o644, string(data)))
		}
		return nil
	})
	if err != nil || len(entries) < 100 {
		b.Skipf("no zoneinfo to unpack: %v", err)
	}
	a := archive(entries...)
	b.ReportMetric(float64(len(entries)), "entries")
	b.ResetTimer()
	for range b.N {
		setup(b)
		if _, why, at := Unpack(a); why != "" {
			b.Fatalf("%s at %q", why, at)
		}
	}
}
