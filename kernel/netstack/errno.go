// tcpip errors as the Linux errnos a program's socket calls return.
// SPDX-License-Identifier: BSD-3-Clause

package netstack

import (
	"syscall"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// errnoOf maps a tcpip error to the errno Linux gives in the same situation (after gVisor's
// own sentry mapping, pkg/syserr). nil is 0; an error without a Linux equivalent is EINVAL.
func errnoOf(err tcpip.Error) syscall.Errno {
	switch err.(type) {
	case nil:
		return 0
	case *tcpip.ErrWouldBlock:
		return syscall.EAGAIN
	case *tcpip.ErrConnectStarted:
		return syscall.EINPROGRESS
	case *tcpip.ErrAlreadyConnecting:
		return syscall.EALREADY
	case *tcpip.ErrAlreadyConnected:
		return syscall.EISCONN
	case *tcpip.ErrNotConnected:
		return syscall.ENOTCONN
	case *tcpip.ErrConnectionRefused:
		return syscall.ECONNREFUSED
	case *tcpip.ErrConnectionReset:
		return syscall.ECONNRESET
	case *tcpip.ErrConnectionAborted:
		return syscall.ECONNABORTED
	case *tcpip.ErrAborted, *tcpip.ErrClosedForSend:
		return syscall.EPIPE
	case *tcpip.ErrTimeout:
		return syscall.ETIMEDOUT
	case *tcpip.ErrPortInUse, *tcpip.ErrDuplicateAddress, *tcpip.ErrNoPortAvailable:
		return syscall.EADDRINUSE
	case *tcpip.ErrBadLocalAddress:
		return syscall.EADDRNOTAVAIL
	case *tcpip.ErrNetworkUnreachable, *tcpip.ErrNoNet:
		return syscall.ENETUNREACH
	case *tcpip.ErrHostUnreachable:
		return syscall.EHOSTUNREACH
	case *tcpip.ErrHostDown:
		return syscall.EHOSTDOWN
	case *tcpip.ErrUnknownProtocolOption:
		return syscall.ENOPROTOOPT
	case *tcpip.ErrUnknownProtocol:
		return syscall.EPROTONOSUPPORT
	case *tcpip.ErrAddressFamilyNotSupported:
		return syscall.EAFNOSUPPORT
	case *tcpip.ErrDestinationRequired:
		return syscall.EDESTADDRREQ
	case *tcpip.ErrMessageTooLong:
		return syscall.EMSGSIZE
	case *tcpip.ErrNoBufferSpace:
		return syscall.ENOBUFS
	case *tcpip.ErrBroadcastDisabled:
		return syscall.EACCES
	case *tcpip.ErrNotPermitted:
		return syscall.EPERM
	case *tcpip.ErrNotSupported, *tcpip.ErrQueueSizeNotSupported:
		return syscall.EOPNOTSUPP
	case *tcpip.ErrBadAddress:
		return syscall.EFAULT
	case *tcpip.ErrEndpointBusy:
		return syscall.EBUSY
	case *tcpip.ErrUnknownNICID, *tcpip.ErrUnknownDevice, *tcpip.ErrInvalidNICID:
		return syscall.ENODEV
	case *tcpip.ErrNoSuchFile:
		return syscall.ENOENT
	default: // ErrAlreadyBound, ErrInvalidEndpointState, ErrInvalidOptionValue, ...
		return syscall.EINVAL
	}
}
