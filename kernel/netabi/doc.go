// Package netabi is the private interface between the gmpos kernel and its network stack.
// SPDX-License-Identifier: BSD-3-Clause
//
// # Why there are two halves
//
// The kernel runs in trap context: no heap, no goroutines, no timers (kernel/doc.go). A TCP/IP
// stack needs all three, so gmpos runs gVisor's tcpip where they exist — as goroutines of the
// program itself, started by package gmpos/kernel/netstack before main (the runner links that
// package into programs that import net). The kernel keeps what must be fast or must not trust
// the stack: the NIC (virtio-net, its rings and interrupt), the socket file descriptors the
// program sees, and each socket's data rings. The stack talks to the kernel through the one
// system call defined here, gmpos_net, and two kinds of file:
//
//   - the NIC file (OpenNIC): a TAP-like device. read returns one received Ethernet frame,
//     write sends one; both are non-blocking and the file is pollable, so the stack's receive
//     goroutine parks in the Go runtime's own netpoller (epoll) while the line is quiet.
//   - the service file (Attach): readable while the kernel has events for the stack (Events):
//     a socket call of the program to carry out (EvRequest), data the program wrote
//     (EvTxReady), room the program made by reading or accepting (EvRxSpace), a socket the
//     program closed (EvClosed).
//
// # The cost of each path
//
//   - read/write/recvfrom/sendto/readv/writev on a socket never leave the kernel: they copy
//     between the program's buffer and the socket's ring (64 KiB each way). The stack fills the
//     receive ring with Push and drains the send ring with Pull, one system call per batch.
//   - accept4, getsockname, getpeername and getsockopt(SO_ERROR) are answered by the kernel:
//     the stack queues accepted connections ahead of time (OpAccepted) and records addresses
//     (OpSetAddr). Go calls socket, getsockname and getpeername with RawSyscall, which keeps
//     the caller's P: a round trip there could never be served with GOMAXPROCS=1.
//   - socket, setsockopt, shutdown and a stream connect are asynchronous: the program's call
//     returns at once (connect with EINPROGRESS) and the request follows in the event queue;
//     what goes wrong later becomes socket state (StErr), as a failed connect does on Linux.
//   - bind, listen, a datagram connect and other getsockopt options are round trips: the calling
//     thread is parked (its P handed to another thread), the stack's service goroutine carries
//     out the request on tcpip and answers with Reply, which wakes the caller.
//   - readiness (epoll) is kernel state that the stack sets with State and the kernel derives
//     from the rings and the accept queue; epoll never asks the stack.
//
// # Socket ids
//
// A socket id (Sid) is a kernel socket-table slot and a generation: Sid = gen<<SidSlotBits |
// slot. The kernel refuses (EBADF) a call naming a Sid whose slot has been reused since, so a
// late Push for a closed socket can never reach the socket that took its slot. Events arrive in
// the order the kernel queued them: EvClosed(sid) before an EvRequest that creates a socket in
// the same slot.
//
// # Records
//
// Events are fixed-size little-endian records (EventSize bytes, layout below); Push and Pull
// move bytes (stream) or one datagram with its address (dgram). Addresses are Linux struct
// sockaddr_in bytes as the program gave them or will receive them (AF_INET only: the kernel
// answers AF_INET6 sockets with EAFNOSUPPORT, which makes Go's net use IPv4).
package netabi
