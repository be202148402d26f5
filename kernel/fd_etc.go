// The two files the Go resolver reads: /etc/hosts and /etc/resolv.conf.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// gmpos has no file system yet (sys_path.go), but net.LookupHost("localhost") must not ask a
// DNS server, and a name lookup must ask QEMU's, not the resolver's default 127.0.0.1:53
// (net/dnsconfig_unix.go). So two read-only files exist, written at boot from the network
// configuration (ipconfig.go): /etc/hosts names localhost and this machine, /etc/resolv.conf
// names the DNS server. Their open files keep the read position in aux. Immutable after boot.

type etcFileKind struct{}

const maxEtc = 256

var etcFiles [2]struct {
	path string
	data [maxEtc]byte
	n    int
}

// etcInit writes the files' contents. Boot, after ipconfigInit has decided the addresses.
func etcInit() {
	etcFiles[0].path, etcFiles[1].path = "/etc/hosts", "/etc/resolv.conf"
	var k kbuf
	k.s("127.0.0.1\tlocalhost\n")
	if ipcfg.static {
		k.ip4(ipcfg.addr).s("\tgmpos\n")
	}
	etcFiles[0].n = copy(etcFiles[0].data[:], k.b[:k.n])
	k.n = 0
	if ipcfg.static && ipcfg.dns != [4]byte{} {
		k.s("nameserver ").ip4(ipcfg.dns).s("\n")
	}
	k.s("options attempts:2 timeout:2\n")
	etcFiles[1].n = copy(etcFiles[1].data[:], k.b[:k.n])
}

// ip4 appends a dotted-quad address.
func (k *kbuf) ip4(a [4]byte) *kbuf {
	for i, b := range a {
		if i > 0 {
			k.s(".")
		}
		k.d(int64(b))
	}
	return k
}

// etcLookup returns the index of the file named by the NUL-terminated, checked path p of
// length n, or -1.
func etcLookup(p uintptr, n uintptr) int {
	b := userBytes(p, n)
	for i := range etcFiles {
		if string(b) == etcFiles[i].path {
			return i
		}
	}
	return -1
}

func (etcFileKind) read(f *file, buf, n uintptr) int64 {
	e := &etcFiles[f.priv]
	off := int(f.aux)
	if off >= e.n {
		return 0
	}
	c := min(int(n), e.n-off)
	if !userRange(buf, uintptr(c), true) {
		return -EFAULT
	}
	copyOut(buf, e.data[off:off+c])
	f.aux += uint32(c)
	return int64(c)
}

func (etcFileKind) write(f *file, buf, n uintptr) int64 { return -EBADF }
func (etcFileKind) poll(f *file) uint32                 { return epollIn | epollOut }
func (etcFileKind) stat(f *file) fileStat {
	return fileStat{mode: sIFREG | 0o444, nlink: 1, blksize: 4096, size: uint64(etcFiles[f.priv].n), ino: 100 + f.priv}
}
func (etcFileKind) release(f *file) {}
