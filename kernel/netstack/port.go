// Frame ports: how the link endpoint reaches the NIC — the kernel's batch calls, or a plain file.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"os"
	"syscall"

	"gmpos/kernel/netabi"
)

// framePort moves Ethernet frames between the link endpoint and a NIC, in frame records
// (netabi.NextFrame, AppendFrame). recv is called by the receive goroutine only; send by any
// goroutine (each with its own buffer).
type framePort interface {
	// receive calls deliver with each batch of received frame records, in buf, until the port
	// is closed (then it returns os.ErrClosed, or another error it cannot recover from). While
	// no frame is there it waits in the Go runtime's netpoller, never blocking an M.
	receive(buf []byte, deliver func(recs []byte)) error
	// send sends the frames records of recs holds; returns how many went out (fewer, or
	// EAGAIN, when the transmit ring is full).
	send(recs []byte, frames int) (int, error)
	close() error
}

// kernelPort is the NIC on gmpos: the NIC file (netabi.OpOpenNIC) for readiness, and gmpos_net's
// OpNICRecv/OpNICSend to move a batch of frames per system call.
type kernelPort struct {
	f  *os.File
	rc syscall.RawConn
}

func newKernelPort(f *os.File) (*kernelPort, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &kernelPort{f: f, rc: rc}, nil
}

// receive asks the kernel for batches inside one RawConn.Read: the function returns false to
// park the goroutine until the NIC file is readable (an epoll edge: the NIC's interrupt or the
// kernel's poller), and runs again. After a batch that drained the ring (NICDrained) it parks
// at once, saving the system call that would only have found the ring empty; an edge that
// comes meanwhile is kept by the runtime's poll descriptor, which only RawConn.Read's own
// start resets — hence one long Read, not one per batch.
func (p *kernelPort) receive(buf []byte, deliver func(recs []byte)) error {
	var errno syscall.Errno
	err := p.rc.Read(func(uintptr) bool {
		for {
			r, e := gmposNet(netabi.OpNICRecv, ptr(buf), uintptr(len(buf)), 0, 0, 0)
			switch {
			case e == syscall.EAGAIN:
				return false
			case e == syscall.EINTR:
				continue
			case e != 0:
				errno = e
				return true
			}
			deliver(buf[:r&^netabi.NICDrained])
			if r&netabi.NICDrained != 0 {
				return false
			}
		}
	})
	if err != nil {
		return err
	}
	return errno
}

func (p *kernelPort) send(recs []byte, frames int) (int, error) {
	r, e := gmposNet(netabi.OpNICSend, ptr(recs), uintptr(len(recs)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func (p *kernelPort) close() error { return p.f.Close() }

// filePort is a NIC that is a plain non-blocking file with one frame per read and per write —
// a TAP device, or the hosted tests' SOCK_SEQPACKET socketpair standing in for the wire.
type filePort struct {
	f *os.File
}

// receive reads one frame at a time (os.File parks the goroutine in the netpoller on EAGAIN)
// and delivers each as one record.
func (p filePort) receive(buf []byte, deliver func(recs []byte)) error {
	for {
		n, err := p.f.Read(buf[netabi.FrameRecHdr:])
		if err != nil {
			return err
		}
		buf[0], buf[1] = byte(n), byte(n>>8)
		deliver(buf[:netabi.FrameRecHdr+n])
	}
}

// send writes the frames one by one, never waiting: a full socket buffer (EAGAIN) drops the rest.
func (p filePort) send(recs []byte, frames int) (int, error) {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	sent := 0
	var werr error
	rc.Write(func(fd uintptr) bool {
		for rest := recs; len(rest) > 0; {
			frame, r, ok := netabi.NextFrame(rest)
			if !ok {
				werr = syscall.EINVAL
				return true
			}
			if _, werr = syscall.Write(int(fd), frame); werr == syscall.EINTR {
				continue
			}
			if werr != nil {
				return true
			}
			sent++
			rest = r
		}
		return true
	})
	if sent == 0 && werr != nil {
		return 0, werr
	}
	return sent, nil
}

func (p filePort) close() error { return p.f.Close() }
