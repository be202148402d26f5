// The tree at boot: the initramfs, /dev, /etc's network files, /proc, the working directory.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
)

// The loader's modules (docs/contract.md, "Boot modules"): the runner's arguments, then the
// initramfs.
const (
	moduleArgs = iota
	moduleInitramfs
	numModules
)

// fsInit makes the tree: the root, the initramfs's files (kernel/vfs unpacks the cpio archive
// where the loader put it: the module's pages stay out of the frame allocator for good), then
// what the kernel itself provides — /tmp, /dev's devices, and /proc's files (procInit, once the
// process image exists). A malformed archive stops the boot with the reason and the entry.
// Boot, after initMemory.
func fsInit() {
	vfs.SetNow(walltime())
	vfs.Reset()
	if pa, n := board.BootModule(moduleInitramfs); n > 0 {
		img := unsafe.Slice((*byte)(ptr(mm.PhysToVirt(pa))), n)
		if _, why, at := vfs.Unpack(img); why != "" {
			var k kbuf
			k.s("gmpos: boot failed: initramfs: ").s(why).s(": ").bytes(at[:min(len(at), 200)]).c('\n').to(consoleStderr)
			bootPanic("the initramfs is malformed")
		}
	}
	mkdirBoot("/tmp", 0o1777)
	mkdirBoot("/dev", 0o755)
	mkdirBoot("/etc", 0o755)
	mkdirBoot("/proc", 0o555)
	mkdirBoot("/proc/self", 0o555)
	mkdirBoot("/proc/sys", 0o555)
	mkdirBoot("/proc/sys/net", 0o555)
	mkdirBoot("/proc/sys/net/core", 0o555)
	for _, d := range devFiles {
		nodeBoot(d.path, vfs.MakeDev(1, uint32(d.minor)))
	}
	nodeBoot("/dev/tty", vfs.MakeDev(5, 0))
	var k kbuf
	k.d(maxBacklog).c('\n')
	fileBoot("/proc/sys/net/core/somaxconn", k.b[:k.n], false)
}

// mkdirBoot makes a directory unless the initramfs has one.
func mkdirBoot(path string, perm uint32) {
	lk, e := vfs.Walk(vfs.Root, bootPath(path), true)
	if e != vfs.OK || lk.Ino != 0 {
		return
	}
	vfs.Mkdir(lk.Dir, lk.Name, perm)
}

// nodeBoot makes a character device node.
func nodeBoot(path string, rdev uint64) {
	lk, e := vfs.Walk(vfs.Root, bootPath(path), false)
	if e != vfs.OK || lk.Ino != 0 {
		return
	}
	if ino, e := vfs.Create(lk.Dir, lk.Name, vfs.SIFCHR|0o666); e == vfs.OK {
		vfs.Get(ino).Rdev = rdev
	}
}

// fileBoot writes a file the kernel provides, read-only for the program's sake (mode 0444);
// unless replace, a file the initramfs has is kept (a user's -fs may bring its own /etc/hosts).
func fileBoot(path string, data []byte, replace bool) vfs.Ino {
	lk, e := vfs.Walk(vfs.Root, bootPath(path), true)
	if e != vfs.OK {
		return 0
	}
	ino := lk.Ino
	if ino != 0 && !replace {
		return ino
	}
	if ino == 0 {
		if ino, e = vfs.Create(lk.Dir, lk.Name, vfs.SIFREG|0o444); e != vfs.OK {
			return 0
		}
	}
	vfs.Truncate(ino, 0)
	vfs.Write(ino, 0, data)
	return ino
}

// etcInit writes /etc/hosts and /etc/resolv.conf from the network configuration (ipconfig.go),
// unless the initramfs has them: net.LookupHost("localhost") must not ask a DNS server, and a
// name lookup must ask QEMU's, not the resolver's default 127.0.0.1:53 (net/dnsconfig_unix.go).
// Boot.
func etcInit() {
	var k kbuf
	k.s("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	if ipcfg.static {
		k.ip4(ipcfg.addr).s("\tgmpos\n")
	}
	fileBoot("/etc/hosts", k.b[:k.n], false)
	k.n = 0
	if ipcfg.static && ipcfg.dns != [4]byte{} {
		k.s("nameserver ").ip4(ipcfg.dns).s("\n")
	}
	k.s("options attempts:2 timeout:2\n")
	fileBoot("/etc/resolv.conf", k.b[:k.n], false)
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

// procMeminfo is /proc/meminfo's inode: its contents are made again at each open (procOpen).
var procMeminfo vfs.Ino

// procInit writes /proc's files once the process image is on the initial stack (sp: argc,
// then argv): /proc/self/cmdline (argv, each string with its NUL), /proc/cpuinfo (one entry a
// core, the architecture's fields: archCPUInfo), /proc/meminfo; and the working directory
// (cwd=PATH on the command line, which may lie inside a share; "/" if it is absent or names no
// directory, said in the log).
// Boot.
func procInit(sp uintptr) {
	ino := fileBoot("/proc/self/cmdline", nil, true)
	argc := load64(sp)
	off := int64(0)
	for i := uint64(0); i < argc; i++ {
		p := uintptr(load64(sp + 8 + 8*uintptr(i)))
		n := uintptr(0)
		for *(*byte)(ptr(p + n)) != 0 {
			n++
		}
		w, _ := vfs.Write(ino, off, userBytes(p, n+1))
		off += int64(w)
	}
	// /proc/self/auxv: the auxiliary vector after envp's NULL, AT_NULL pair included (fs/proc/
	// base.c proc_pid_auxv). golang.org/x/sys/cpu reads it on linux/arm64 — its init runs before
	// it can ask the runtime — and otherwise reads the ID registers with MRS, which only a
	// kernel emulating EL0 ID-register reads (Linux's HWCAP_CPUID) survives.
	ino = fileBoot("/proc/self/auxv", nil, true)
	a := sp + 8 + 8*uintptr(argc) + 8 // past argv's NULL
	for load64(a) != 0 {
		a += 8 // envp
	}
	a += 8
	start := a
	for load64(a) != 0 {
		a += 16
	}
	vfs.Write(ino, 0, userBytes(start, a+16-start))
	ino = fileBoot("/proc/cpuinfo", nil, true)
	off = 0
	for cpu := range ncpu {
		var k kbuf
		archCPUInfo(&k, cpu)
		w, _ := vfs.Write(ino, off, k.b[:k.n])
		off += int64(w)
	}
	procMeminfo = fileBoot("/proc/meminfo", nil, true)
	procRefresh(procMeminfo)
	mkdirBoot(procFdPrefix, 0o500)
	if lk, e := vfs.Walk(vfs.Root, bootPath(procFdPrefix), true); e == vfs.OK {
		procFdDir = lk.Ino // procfd.go
	}

	vfs.Open(procs[0].cwd)
	if cmd.cwd.n > 0 {
		lk, e := vfs.Walk(vfs.Root, cmd.cwd.bytes(), true)
		switch {
		case e == vfs.OK && lk.Mount != 0 && len(lk.Rest) > 0:
			// Inside a share (mounted by now, p9Init): the runner's own directory, not asked again.
			var rel p9Path
			p9Clean(&rel, lk.Rest)
			setShareCwd(&procs[0], lk.Mount-1, &rel)
		case e == vfs.OK && lk.Ino != 0 && vfs.Get(lk.Ino).IsDir():
			setCwd(lk.Ino)
		default:
			var k kbuf
			k.s("log cwd=").bytes(cmd.cwd.bytes()).s(" is not a directory of the tree: starting in /").record()
		}
	}
}

// procRefresh makes a generated file's contents anew (sysOpenat, before the open).
func procRefresh(ino vfs.Ino) {
	if ino != procMeminfo || ino == 0 {
		return
	}
	total, free := mm.FrameCounts()
	var k kbuf
	k.s("MemTotal:       ").d(int64(total * 4)).s(" kB\n")
	k.s("MemFree:        ").d(int64(free * 4)).s(" kB\n")
	k.s("MemAvailable:   ").d(int64(free * 4)).s(" kB\n")
	vfs.Truncate(ino, 0)
	vfs.Write(ino, 0, k.b[:k.n])
}

// bootPath copies a path into pathBuf[0] for vfs.Walk, whose result refers into its argument: a
// []byte(string) conversion would be allocated on the heap, which boot code may not do.
func bootPath(s string) []byte { return pathBuf[0][:copy(pathBuf[0][:], s)] }
