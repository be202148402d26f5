// Guest: sysfuzz's oracle: calls that must fail because of their buffer, checked after they return.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"syscall"
)

// A kernel that forgets to validate a pointer does not always fault: the direct map and the
// kernel's own data are mapped, so a store to them succeeds silently and corrupts the kernel.
// oracle catches that: for the calls gmpos implements, a success means the kernel read or wrote
// the buffer, so a success with a buffer nobody may read (or write) is wrong.

// access is a buffer a successful call has certainly read (write false) or written.
type access struct {
	slot  int
	n     uint64
	write bool
}

// accessed lists the buffers call nr has touched if it returned r without error. Only what is
// certain is listed: optional pointers count only when non-NULL, and a buffer written only on
// some outcomes (nanosleep's rem) not at all.
func accessed(nr uint64, a *[6]uint64, r uint64) []access {
	nonNull := func(slot int, n uint64, write bool) []access {
		if a[slot] == 0 {
			return nil
		}
		return []access{{slot, n, write}}
	}
	switch nr {
	case nrClockGettime, nrFstat:
		return []access{{1, 16, true}}
	case nrClockGetres, nrGetrlimit:
		return nonNull(1, 16, true)
	case nrGettimeofday:
		return nonNull(0, 16, true)
	case nrTime:
		return nonNull(0, 8, true)
	case nrUname:
		return []access{{0, 390, true}}
	case nrGetrandom:
		return []access{{0, r, true}}
	case nrSchedGetaffinity:
		return []access{{2, r, true}}
	case nrArchPrctl:
		if a[0] == 0x1003 || a[0] == 0x1004 {
			return []access{{1, 8, true}}
		}
	case nrPrlimit64:
		return append(nonNull(2, 16, false), nonNull(3, 16, true)...)
	case nrRtSigaction:
		return append(nonNull(1, 32, false), nonNull(2, 32, true)...)
	case nrRtSigprocmask:
		return append(nonNull(1, 8, false), nonNull(2, 8, true)...)
	case nrSigaltstack:
		return append(nonNull(0, 24, false), nonNull(1, 24, true)...)
	case nrRead:
		return []access{{1, r, true}}
	case nrWrite:
		return []access{{1, r, false}}
	case nrEpollWait, nrEpollPwait:
		return []access{{1, mul(12, r), true}}
	case nrEpollCtl:
		if a[1] == 1 || a[1] == 3 {
			return []access{{3, 12, false}}
		}
	case nrNanosleep:
		return []access{{0, 16, false}}
	case nrClockNanosleep:
		return []access{{2, 16, false}}
	case nrFutex:
		if op := a[1] &^ (128 | 256); op == 0 || op == 9 {
			return append([]access{{0, 4, false}}, nonNull(3, 16, false)...)
		}
	case nrGmposNet:
		switch a[0] {
		case 1: // OpConfig
			return []access{{1, 64, true}}
		case 4: // OpEvents: r records
			return []access{{1, mul(eventSize, r), true}}
		case 5: // OpReply: the payload
			return []access{{3, a[4], false}}
		case 6, 7: // OpPush reads r bytes, OpPull writes them
			return []access{{2, r, a[0] == 7}}
		case 10: // OpSetAddr: the local and the peer address
			return []access{{2, a[3], false}, {4, a[5], false}}
		case 11: // OpAccepted: the two address buffers
			return []access{{2, 2 * addrBufSize, false}}
		}
	case nrBind, nrConnect:
		// move_addr_to_kernel copied the address in (an int length of at most 128).
		if n := int32(a[2]); n > 0 && n <= 128 {
			return []access{{1, uint64(n), false}}
		}
	case nrSendto:
		acc := []access{{1, r, false}}
		if n := int32(a[5]); a[4] != 0 && n > 0 && n <= 128 {
			acc = append(acc, access{4, uint64(n), false})
		}
		return acc
	case nrRecvfrom:
		acc := nonNull(4, 4, true)
		if acc != nil {
			acc[0].slot = 5 // *addrlen, read and written when there is an address
		}
		if uint32(a[3])&syscall.MSG_TRUNC == 0 { // MSG_TRUNC: r is the datagram's length
			acc = append(acc, access{1, r, true})
		}
		return acc
	case nrAccept, nrAccept4:
		if a[1] != 0 {
			return []access{{2, 4, true}}
		}
	case nrGetsockname, nrGetpeername, nrGetsockopt:
		slot := 2
		if nr == nrGetsockopt {
			slot = 4
		}
		return []access{{slot, 4, true}}
	case nrSetsockopt:
		// Linux reads an int of every SOL_SOCKET and SOL_TCP option gmpos carries out.
		switch lv, nm := int32(a[1]), int32(a[2]); {
		case lv == 1 && (nm == 2 || nm == 6 || nm == 7 || nm == 8 || nm == 9 || nm == 13 || nm == 15),
			lv == 6 && (nm == 1 || nm == 2 || nm == 4 || nm == 5 || nm == 6):
			return []access{{3, 4, false}}
		}
	case nrSocketpair:
		return []access{{3, 8, true}}
	case nrSendmsg, nrRecvmsg:
		return []access{{1, 56, false}}
	case nrReadv, nrWritev:
		if uint32(a[2]) > 0 {
			return []access{{1, 16, false}} // the first iovec
		}
	case nrGmposInfo:
		switch a[0] {
		case 1:
			return []access{{1, 16, true}}
		case 2, 5, 8, 11:
			if a[2] > 0 {
				return []access{{1, 8, true}}
			}
		case 4:
			return []access{{1, 1, true}}
		}
	}
	return nil
}

// unwritable reports whether no kernel may write [p, p+n): unreadable, or starting on a
// read-only page of the image.
func (f *fuzzer) unwritable(p, n uint64) bool {
	page := func(a uint64) uint64 { return a &^ (pageSize - 1) }
	return f.unreadable(p, n) || page(p) == page(uint64(f.text)) || page(p) == page(uint64(f.rodata))
}

// oracle returns what is wrong with a successful call, or "".
func (w *worker) oracle(nr uint64, a *[6]uint64, r uint64) string {
	if nr == nrGmposNet && (a[0] == 2 || a[0] == 3) {
		// The stack attached before main, and -net none leaves no NIC to open.
		return fmt.Sprintf("gmpos_net op %#x succeeded (= %#x), although the stack is attached and there is no NIC", a[0], r)
	}
	for _, x := range accessed(nr, a, r) {
		if x.n == 0 {
			continue
		}
		p := a[x.slot]
		if x.write && w.f.unwritable(p, x.n) {
			return fmt.Sprintf("succeeded (= %#x) although it writes %d bytes to %#x (argument %d), which no kernel may write", r, x.n, p, x.slot)
		}
		if !x.write && w.f.unreadable(p, x.n) {
			return fmt.Sprintf("succeeded (= %#x) although it reads %d bytes at %#x (argument %d), which no kernel may read", r, x.n, p, x.slot)
		}
	}
	return ""
}
