// The program's memory of one transfer: a buffer, or an iovec array (readv, writev, sendmsg,
// recvmsg), checked as Linux's import_iovec checks it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

// userIO is the user memory of a read or a write: the one buffer [base, base+len) when iov is
// 0, else the n struct iovec at iov (16 bytes each: base, length), which iovImport checked. The
// kinds that move whole messages (sockets) take a userIO, so that a datagram is one message
// however many iovecs it spans; the others are called once per iovec (sysReadv).
type userIO struct {
	iov, n    uintptr
	base, len uintptr
}

// oneBuf is the userIO of a single buffer.
func oneBuf(base, n uintptr) userIO { return userIO{base: base, len: n} }

// segs is the number of segments.
func (u *userIO) segs() uintptr {
	if u.iov == 0 {
		return 1
	}
	return u.n
}

// seg is segment i: its address and length.
func (u *userIO) seg(i uintptr) (uintptr, uintptr) {
	if u.iov == 0 {
		return u.base, u.len
	}
	return uintptr(load64(u.iov + 16*i)), uintptr(load64(u.iov + 16*i + 8))
}

// ok reports whether the first c bytes of the segments can be read (write false) or written.
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

// toRing appends the first c bytes of the segments (checked with ok) to ring r.
func (u *userIO) toRing(r *sockRing, c uintptr) {
	for i := uintptr(0); i < u.segs() && c > 0; i++ {
		b, l := u.seg(i)
		l = min(l, c)
		r.write(b, uint64(l))
		c -= l
	}
}

// fromRing copies c bytes of ring r, from offset off, into the segments (checked with ok).
func (u *userIO) fromRing(r *sockRing, off uint64, c uintptr) {
	for i := uintptr(0); i < u.segs() && c > 0; i++ {
		b, l := u.seg(i)
		l = min(l, c)
		r.readAt(off, b, uint64(l))
		off += uint64(l)
		c -= l
	}
}

// put copies kernel bytes src into the segments (checked with ok for len(src)).
func (u *userIO) put(src []byte) {
	for i := uintptr(0); i < u.segs() && len(src) > 0; i++ {
		b, l := u.seg(i)
		l = min(l, uintptr(len(src)))
		copyOut(b, src[:l])
		src = src[l:]
	}
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
