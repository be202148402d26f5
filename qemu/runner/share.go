// -share HOSTDIR[:GUESTDIR]: host directories the guest reads and writes through virtio-9p.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A share is the opposite of -fs: not a copy made at boot but the host directory itself, served
// by QEMU's 9P server (virtio-9p-pci with the "local" file system driver) while the guest runs,
// so that what the program writes — and fsyncs or closes before it exits — is in HOSTDIR when the
// runner returns. The kernel is the 9P2000.L client (kernel/fs9p.go); it learns which device is
// mounted where from the kernel option share=TAG:GUESTDIR, TAG being the device's mount tag.
//
// security_model=none: QEMU creates files as the runner's user, with the modes the guest asks
// for, and reports the host's owners (the guest's program runs as root and may write anything
// the runner's user may).

// Share is one -share.
type Share struct {
	Host  string // absolute host directory
	Guest string // absolute, clean guest path
}

// MaxShares is how many shares the kernel mounts (kernel/fs9p.go p9MaxShares).
const MaxShares = 4

// ParseShare reads -share HOSTDIR[:GUESTDIR], GUESTDIR defaulting to HOSTDIR's absolute path
// (as -fs; the same rule for a ':' in a host path).
func ParseShare(s string) (Share, error) {
	m, err := ParseFS(s)
	if err != nil {
		return Share{}, fmt.Errorf("-share%s", strings.TrimPrefix(err.Error(), "-fs"))
	}
	if m.Guest == "/" {
		return Share{}, fmt.Errorf("-share %s: the root cannot be a share (the guest's / is its own tree)", s)
	}
	for _, c := range m.Host {
		if c == ',' {
			return Share{}, fmt.Errorf("-share %s: QEMU's -fsdev cannot take a path with a comma", s)
		}
	}
	return Share{Host: m.Host, Guest: path.Clean(m.Guest)}, nil
}

// shareTag is the mount tag of share i.
func shareTag(i int) string { return fmt.Sprintf("share%d", i) }

// ShareArgs are QEMU's arguments for the shares: one fsdev and one virtio-9p-pci function each.
func ShareArgs(shares []Share) []string {
	var args []string
	for i, s := range shares {
		id := fmt.Sprintf("gmposfs%d", i)
		args = append(args,
			"-fsdev", "local,id="+id+",path="+s.Host+",security_model=none",
			"-device", "virtio-9p-pci,fsdev="+id+",mount_tag="+shareTag(i))
	}
	return args
}

// ShareKopts are the kernel options naming each share's mount point.
func ShareKopts(shares []Share) []string {
	var k []string
	for i, s := range shares {
		k = append(k, "share="+shareTag(i)+":"+s.Guest)
	}
	return k
}

// CheckShares refuses what the kernel could not mount: too many shares, a directory gone since
// the flag was parsed, two shares at one guest path.
func CheckShares(shares []Share) error {
	if len(shares) > MaxShares {
		return fmt.Errorf("%d -share flags: the kernel mounts at most %d", len(shares), MaxShares)
	}
	seen := map[string]bool{}
	for _, s := range shares {
		if st, err := os.Stat(s.Host); err != nil || !st.IsDir() {
			return fmt.Errorf("-share %s: not a directory", s.Host)
		}
		if seen[s.Guest] {
			return fmt.Errorf("-share: two shares at %s", s.Guest)
		}
		seen[s.Guest] = true
	}
	return nil
}

// shareCwd is the guest's working directory when the runner's own lies in a share: the same
// directory through the share. ok false: not in one.
func shareCwd(wd string, shares []Share) (string, bool) {
	for _, s := range shares {
		rel, err := filepath.Rel(s.Host, wd)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if rel == "." {
			return s.Guest, true
		}
		return path.Join(s.Guest, filepath.ToSlash(rel)), true
	}
	return "", false
}
