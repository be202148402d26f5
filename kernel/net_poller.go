// The kernel's I/O poller: sched.Poller over the NIC and the shares (virtio-9p).
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// The scheduler asks the poller for work the way the Go runtime's findRunnable asks netpoll
// (sched/platform.go, Poller): without blocking from findRunnable and from the tick, and — on the
// last P to go idle while threads wait on the network — blocking. Here:
//
//   - Poll(false) looks at the NIC's receive ring. If frames arrived that nobody has been told
//     of, it tells the NIC file's readers (nicSignal); the threads that wake-up readies — the
//     stack's receive goroutine's thread, parked in epoll_pwait — are not handed to the
//     scheduler one by one but returned to it in buf, as netpoll's list goes to injectglist.
//   - Poll(true) is the halt on the BKL's way to idle: it makes sure the NIC will interrupt
//     (its receive interrupt is off while the stack drains the ring), and returns at once; the
//     core then halts until that interrupt or an IPI (trap.go). If a frame slipped in while the
//     interrupt was off, it polls instead. A core that idles without the BKL halts without it
//     (wake_unlocked.go): nothing depends on it, since the interrupt is off only while a told
//     reader drains the ring (nic.go nicIRQ).
//
// The interrupt handler (nic.go, nicIRQ) readies the same threads when a frame arrives while
// the cores are busy or halted; netStats counts who readied how many (ready_poll, ready_irq,
// ready_stack), and the trace=1 timeline names each one (pollready, nicready, ready: trace.go).
// BKL.
type netPoller struct{}

// netWake says who is making threads runnable right now, so that unblock (wait.go) can hand
// them to the poll in progress and count them. BKL.
var netWake struct {
	by   uint8
	base uintptr // Poll's buf: GIDs are stored here, not handed to sched.Ready
	n    int
	max  int
}

const (
	wakeOther = iota
	wakeIRQ
	wakePoll
)

func netWakeBy(by uint8) { netWake.by = by }

// netWakeTake gives gp to the poll in progress instead of the scheduler; false when no poll
// is collecting (or its buffer is full).
func netWakeTake(gp sched.GID) bool {
	switch netWake.by {
	case wakeIRQ:
		netStats[netabi.NetReadyIRQ]++
	case wakePoll:
		netStats[netabi.NetReadyPoll]++
		if netWake.n < netWake.max {
			*(*sched.GID)(ptr(netWake.base + uintptr(netWake.n)*unsafe.Sizeof(sched.GID(0)))) = gp
			netWake.n++
			return true
		}
		// The poll's buffer is full (sched's pollBatch): the thread goes to the scheduler
		// directly — readied by the poll all the same, though traced as a plain ready.
	}
	return false
}

func (netPoller) Poll(block bool, buf []sched.GID) int {
	if !bklHeld(currentCPU()) {
		return 0 // not reached: Waiters says none without the BKL (a second guard)
	}
	if cmd.noNetPoll {
		return 0 // netpoll=0: the tick's poll too (sched.Tick polls without asking Waiters)
	}
	nicUp := nic.present && nic.file >= 0
	if !nicUp && p9n == 0 || len(buf) == 0 {
		return 0
	}
	if block && (!nicUp || !nic.dev.EnableRxInterrupts()) {
		return 0 // the halt follows; the NIC's (or a share's) interrupt ends it
	}
	netStats[netabi.NetPolls]++
	netWake.by, netWake.base, netWake.n, netWake.max = wakePoll, uintptr(unsafe.Pointer(&buf[0])), 0, len(buf)
	if nicUp && nicSignal(currentCPU()) {
		netStats[netabi.NetPollHits]++
	}
	// The shares' replies too: a thread whose 9P call just ended runs without waiting for the
	// device's interrupt (fs9p.go).
	for i := 0; i < p9n; i++ {
		if p9s[i].up && p9s[i].dev.Pending() {
			p9Poll(i, currentCPU())
		}
	}
	n := netWake.n
	netWake.by, netWake.base, netWake.n, netWake.max = wakeOther, 0, 0, 0
	return n
}

// Waiters: threads are parked in the kernel while the stack listens on the NIC, or a share is
// mounted (its calls park threads too) — netWaiters — and the caller holds the BKL. Without it
// (an idle core's wake-up, wake_unlocked.go) the scheduler is told there are none, so that it
// neither calls Poll nor takes its poll lock and notes a poll that did not happen: a BKL
// holder's blocking poll, the last idle P's, must not find that lock taken. With the kernel
// option netpoll=0 there are never any: the devices' interrupts alone must do (the test of
// nicIRQ's invariant, nic.go).
func (netPoller) Waiters() bool { return bklHeld(currentCPU()) && !cmd.noNetPoll && netWaiters() }

// netWaiters reports whether threads wait on the NIC's or a share's devices: the NIC is open
// (the stack listens on it) or a share is mounted, and some thread is blocked. BKL (the paths
// without it need not ask: nic.go nicIRQ).
func netWaiters() bool {
	return netOpen() && (waiters.n > 0 || futexQ.list.n > 0)
}

// netOpen reports whether the network poller has devices to poll: the NIC is open, or a share
// is mounted. BKL.
func netOpen() bool { return nic.present && nic.file >= 0 || p9n > 0 }

var _ sched.Poller = netPoller{}
