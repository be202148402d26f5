// Package netstack is gmpos's TCP/IP stack: gVisor's tcpip running as goroutines of the program.
// SPDX-License-Identifier: BSD-3-Clause
//
// The kernel owns the NIC, the program's socket file descriptors and their data rings; this
// package owns the protocols. The two meet through the gmpos_net system call and two files
// (package gmpos/kernel/netabi is the contract). The runner links this package into every
// program that imports net, so its init runs before main.
//
// # Start-up (init.go)
//
// init asks gmpos_net(OpConfig). ENOSYS means "not on gmpos" (a hosted test binary on Linux):
// init then does nothing at all. Otherwise it attaches (the service file), opens NIC 0 if the
// Config has CfgNIC, builds a stack.Stack (ipv4, arp, tcp, udp, icmp: no ipv6, the kernel refuses
// AF_INET6), a loopback NIC (127.0.0.1/8) and the Ethernet NIC with the configured address and
// a default route via the gateway, and starts the goroutines — all before init returns, so that
// main may net.Listen at once. init is on every network program's boot path: it only builds
// tables and starts four goroutines; nothing waits for the network.
//
// # Goroutines
//
//   - the NIC receiver (link.go, port.go): takes a batch of received frames per system call
//     (gmpos_net OpNICRecv) and hands each frame to tcpip. When the kernel finds the ring empty
//     it re-enables the NIC's interrupt — during the call that drained it, which it reports
//     (NICDrained), or on the next — and the goroutine parks in the Go runtime's netpoller on
//     the NIC file (epoll), never blocking an M, until the interrupt or the kernel's poller makes
//     the file readable again.
//   - the NIC sender (link.go, txQueue): tcpip goroutines put outgoing frames in a FIFO queue
//     (gVisor's link/qdisc/fifo) and go on; this goroutine sends what has accumulated in
//     batches of up to 47 frames, with one system call and one device notification each
//     (OpNICSend) — TCP hands the link one segment per call, so without the queue every frame
//     cost a notification. A full transmit ring drops what did not fit and counts it: TCP
//     retransmits, as after a loss on the wire, and no tcpip goroutine ever waits for the
//     device while holding its locks.
//   - the event reader (service.go, sys.go): waits for the service file to become readable
//     (one long RawConn Read, so again in the netpoller) and fetches batches of event records
//     with OpEvents; a batch that did not fill its buffer emptied the queue, so it parks at
//     once. It only reads; two batch buffers go back and forth between it and the service
//     goroutine.
//   - the service goroutine (service.go): the only goroutine that touches the socket table and
//     calls the kernel about sockets. It takes event batches from the reader and readiness
//     changes from tcpip. tcpip reports readiness through waiter.Entry callbacks that run on
//     tcpip's own goroutines with tcpip's locks held; such a callback must not call back into
//     the endpoint or the kernel, so it only puts the socket on a mutex-protected dirty list
//     and pokes a channel. One goroutine owning everything means no socket locks and a fixed
//     order of kernel calls per socket (a Reply never overtakes the State it depends on).
//
// # Sockets (socket.go, request.go)
//
// Per socket the service keeps the tcpip endpoint and its wait queue, the readiness bits it
// has set in the kernel, bytes read from the endpoint that the kernel's receive ring could not
// take yet (stream: wait for EvRxSpace; dgram: one datagram with its source), and bytes pulled
// from the send ring that the endpoint could not take yet (StTxOpen is then cleared and set
// again when the endpoint becomes writable). Requests run on the endpoint and are answered
// with OpReply; tcpip errors become Linux errnos (errno.go), sockaddrs are Linux sockaddr_in
// bytes (sockaddr.go), socket options are those Go's net sets and a few more (sockopt.go).
// A stream connect answers -EINPROGRESS and reports the outcome later with OpState. Events are
// ordered, so a shutdown(SHUT_WR) first drains the send ring. A socket the program closed
// (EvClosed) is drained, released to the kernel at once, and closed gracefully (FIN after the
// data) as soon as tcpip has taken the data.
//
// # The kernel as an interface (kernel.go)
//
// The service reaches the kernel through the Kernel interface: the real one (sys.go) makes
// gmpos_net calls; the hosted tests put a fake kernel with rings, an event queue and a fake
// program behind it, and run one or two stacks (two joined by a socketpair standing in for the
// wire, which also exercises the link endpoint and the netpoller path).
//
// # Files
//
// doc.go this text; init.go start-up; kernel.go the Kernel interface; sys.go the real kernel;
// link.go the NIC link endpoint; port.go how it reaches the NIC (the kernel's batches, or a file); stack.go the tcpip stack; service.go the loops and the
// dispatcher; socket.go per-socket data movement; request.go socket calls; sockopt.go options;
// sockaddr.go addresses; errno.go error mapping; stats.go counters.
package netstack
