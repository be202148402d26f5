// The program's memory of one transfer: a buffer, or an iovec array (readv, writev, sendmsg,
// recvmsg), checked as Linux's import_iovec checks it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// userIO is the user memory of a read or a write: the one buffer [base, base+len) when iov is
// 0, else the n struct iovec at iov (16 bytes each: base, length), which iovImport checked. The
// kinds that move whole messages (sockets) take a userIO, so that a datagram is one message
// however many iovecs it spans; the others are called once per iovec (sysReadv).
//
// Linux copies the iovecs in before it moves a byte (iovec_from_user). userIO keeps the first
// iovSnap of them, read once (iovIO); later ones are read from the program's memory each time.
// Every segment is checked where its bytes move, with the values it moves them by: the
// program's other threads may rewrite the iovecs meanwhile, and a segment filled first may be
// the iovec array itself.
type userIO struct {
	iov, n    uintptr
	base, len uintptr
	snap      [iovSnap][2]uintptr
}

// iovSnap is how many iovecs userIO keeps (Go's net uses one or two).
const iovSnap = 8

// oneBuf is the userIO of a single buffer.
func oneBuf(base, n uintptr) userIO { return userIO{base: base, len: n} }

// iovIO is the userIO of n iovecs at iov, checked by iovImport: the first iovSnap are read now.
func iovIO(iov, n uintptr) userIO {
	u := userIO{iov: iov, n: n}
	for i := uintptr(0); i < min(n, iovSnap); i++ {
		u.snap[i] = [2]uintptr{uintptr(load64(iov + 16*i)), uintptr(load64(iov + 16*i + 8))}
	}
	return u
}

// segs is the number of segments.
func (u *userIO) segs() uintptr {
	if u.iov == 0 {
		return 1
	}
	return u.n
}

// seg is segment i: its address and length.
func (u *userIO) seg(i uintptr) (uintptr, uintptr) {
	switch {
	case u.iov == 0:
		return u.base, u.len
	case i < iovSnap:
		return u.snap[i][0], u.snap[i][1]
	}
	return uintptr(load64(u.iov + 16*i)), uintptr(load64(u.iov + 16*i + 8))
}

// ok reports whether the first c bytes of the segments can be read (write false) or written:
// the check Linux makes before it consumes anything. Each segment is checked again when its
// bytes move (toRing, fromRing, put).
func (u *userIO) ok(c uintptr, write bool) bool {
	for i := uintptr(0); i < u.segs() && c > 0; i++ {
		b, l := u.seg(i)
		l = min(l, c)
		if l > 0 && !userRange(b, l, write) {
			return false
		}
		c -= l
	}
	return true
}

// toRing copies the first c bytes of the segments into ring r at offset off, without moving its
// tail (the caller does, so that nothing half-written is ever in the ring). It returns how many
// bytes it copied (fewer than c if the iovecs shrank meanwhile), or false if a segment could not
// be read.
func (u *userIO) toRing(r *sockRing, off uint64, c uintptr) (uintptr, bool) {
	done := uintptr(0)
	for i := uintptr(0); i < u.segs() && done < c; i++ {
		b, l := u.seg(i)
		l = min(l, c-done)
		if l > 0 && !userRange(b, l, false) {
			return done, false
		}
		r.writeAt(off+uint64(done), b, uint64(l))
		done += l
	}
	return done, true
}

// fromRing copies c bytes of ring r, from offset off, into the segments; false if a segment
// could not be written.
func (u *userIO) fromRing(r *sockRing, off uint64, c uintptr) bool {
	for i := uintptr(0); i < u.segs() && c > 0; i++ {
		b, l := u.seg(i)
		l = min(l, c)
		if l > 0 && !userRange(b, l, true) {
			return false
		}
		r.readAt(off, b, uint64(l))
		off += uint64(l)
		c -= l
	}
	return true
}

// put copies kernel bytes src into the segments; false if a segment could not be written.
func (u *userIO) put(src []byte) bool {
	for i := uintptr(0); i < u.segs() && len(src) > 0; i++ {
		b, l := u.seg(i)
		l = min(l, uintptr(len(src)))
		if l > 0 && !userRange(b, l, true) {
			return false
		}
		copyOut(b, src[:l])
		src = src[l:]
	}
	return true
}

// iovImport checks the iovec array of readv, writev, sendmsg and recvmsg as Linux's import_iovec
// does (lib/iov_iter.c): more than UIO_MAXIOV entries is EINVAL (sendmsg and recvmsg say
// EMSGSIZE before this), the array must be readable (EFAULT), a length negative as an ssize_t
// is EINVAL — every length is checked before any buffer — and every buffer must lie in the
// user half (access_ok: EFAULT; a single one's length is first cut to MAX_RW_COUNT). It returns
// the total length, cut to MAX_RW_COUNT; the transfer then uses at most that many bytes.
func iovImport(iov, n uintptr) int64 {
	if n == 0 {
		return 0
	}
	if n > iovMax {
		return -EINVAL
	}
	if !userArray(iov, n, 16, false) {
		return -EFAULT
	}
	for i := uintptr(0); i < n; i++ {
		if int64(load64(iov+16*i+8)) < 0 {
			return -EINVAL
		}
	}
	total := uintptr(0)
	for i := uintptr(0); i < n; i++ {
		base, l := uintptr(load64(iov+16*i)), uintptr(load64(iov+16*i+8))
		if n == 1 {
			l = min(l, maxRWCount)
		}
		if !accessOK(base, l) {
			return -EFAULT
		}
		total += min(l, maxRWCount-total)
	}
	return int64(total)
}
