// The real kernel: gmpos_net system calls and the service and NIC files.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"os"
	"syscall"
	"unsafe"

	"gmpos/kernel/netabi"
)

// gmposNet makes one gmpos_net call. Every op is non-blocking in the kernel, so the ordinary
// Syscall6 (which tells the scheduler the M is in a system call) costs nothing extra.
func gmposNet(op, a1, a2, a3, a4, a5 uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.Syscall6(netabi.NrGmposNet, op, a1, a2, a3, a4, a5)
	return r, e
}

// ptr returns the address of b's first byte, or 0 for an empty slice. The caller passes it
// straight to gmposNet in the same expression, so b stays alive for the call.
func ptr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}

// errOf turns a gmpos_net errno into an error (nil for success).
func errOf(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// sysKernel is Kernel on gmpos. svc is the service file (non-blocking, registered with the Go
// runtime's netpoller by os.NewFile); rc is its RawConn, through which Events waits.
type sysKernel struct {
	svc *os.File
	rc  syscall.RawConn
}

func newSysKernel(fd int) (*sysKernel, error) {
	f := os.NewFile(uintptr(fd), "gmpos-net-service")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &sysKernel{svc: f, rc: rc}, nil
}

// Events calls OpEvents inside one long RawConn.Read: when none are queued the function
// returns false and the runtime parks the goroutine until the service file is readable again
// (an epoll edge: the kernel signals the file when its queue stops being empty), then calls it
// again. No M ever blocks in the kernel for this. A batch that did not fill the buffer took
// every queued event, so the reader parks at once instead of asking again to find none; an
// edge that comes meanwhile is kept by the runtime's poll descriptor (only the start of a
// RawConn.Read resets it — hence one Read for the service's whole life).
func (k *sysKernel) Events(next func() []byte, put func([]byte)) error {
	var buf []byte
	var errno syscall.Errno
	err := k.rc.Read(func(uintptr) bool {
		for {
			if buf == nil {
				buf = next()
			}
			max := len(buf) / netabi.EventSize
			r, e := gmposNet(netabi.OpEvents, ptr(buf), uintptr(max), 0, 0, 0)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN || e == 0 && r == 0:
				return false
			case e != 0:
				errno = e
				return true
			}
			n := min(int(r), max) // a kernel claiming more than fits is not believed
			put(buf[:n*netabi.EventSize])
			buf = nil
			if n < max {
				return false
			}
		}
	})
	if err != nil {
		return err
	}
	return errOf(errno)
}

func (k *sysKernel) Reply(req uint32, result int64, payload []byte) error {
	_, e := gmposNet(netabi.OpReply, uintptr(req), uintptr(result), ptr(payload), uintptr(len(payload)), 0)
	return errOf(e)
}

func (k *sysKernel) Push(sid uint32, data, addr []byte) (int, error) {
	r, e := gmposNet(netabi.OpPush, uintptr(sid), ptr(data), uintptr(len(data)), ptr(addr), uintptr(len(addr)))
	return int(r), errOf(e)
}

func (k *sysKernel) Pull(sid uint32, buf, addr []byte) (int, error) {
	r, e := gmposNet(netabi.OpPull, uintptr(sid), ptr(buf), uintptr(len(buf)), ptr(addr), 0)
	return int(r), errOf(e)
}

func (k *sysKernel) State(sid uint32, set, clear uint32, errno syscall.Errno) error {
	_, e := gmposNet(netabi.OpState, uintptr(sid), uintptr(set), uintptr(clear), uintptr(errno), 0)
	return errOf(e)
}

func (k *sysKernel) Release(sid uint32) error {
	_, e := gmposNet(netabi.OpRelease, uintptr(sid), 0, 0, 0, 0)
	return errOf(e)
}

func (k *sysKernel) SetAddr(sid uint32, local, peer []byte) error {
	_, e := gmposNet(netabi.OpSetAddr, uintptr(sid), ptr(local), uintptr(len(local)), ptr(peer), uintptr(len(peer)))
	return errOf(e)
}

// Accepted passes both addresses in one OpAccepted buffer: u32 length + sockaddr, twice.
func (k *sysKernel) Accepted(lsid uint32, local, peer []byte) (uint32, error) {
	var b [2 * netabi.AddrBufSize]byte
	putAddrBuf(b[:netabi.AddrBufSize], local)
	putAddrBuf(b[netabi.AddrBufSize:], peer)
	r, e := gmposNet(netabi.OpAccepted, uintptr(lsid), ptr(b[:]), 0, 0, 0)
	return uint32(r), errOf(e)
}
