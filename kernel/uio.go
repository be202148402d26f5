// iovec arrays (readv, writev, sendmsg, recvmsg), checked as Linux's import_iovec checks them.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

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
