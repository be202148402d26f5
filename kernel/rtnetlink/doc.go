// Package rtnetlink is the wire format of the kernel's NETLINK_ROUTE sockets: reading the
// requests a program sends and writing the kernel's answers, byte for byte as Linux does.
// SPDX-License-Identifier: BSD-3-Clause
//
// Go's net.Interfaces, net.InterfaceAddrs and net.InterfaceByName read the machine's
// interfaces from the kernel through a NETLINK_ROUTE socket (syscall.NetlinkRIB): they send an
// RTM_GETLINK or RTM_GETADDR dump request and parse the RTM_NEWLINK or RTM_NEWADDR messages
// that come back, up to NLMSG_DONE. The socket itself — its port id, its queue of replies, the
// system calls — is the kernel's (kernel/netlink.go, kernel/fd_netlink.go); this package is
// the part that needs no kernel state: pure functions over byte slices, testable on the host.
//
// # Concepts
//
//   - Message: a struct nlmsghdr (Header) and its payload, nlmsg_len bytes, padded to 4
//     (NLMSG_ALIGN). A request may hold several; a reply datagram may too.
//   - Request: one message of the program's, decoded by Next into what the kernel must do
//     (Request.Op) and how it must answer (Request.Errno, Request.Ack).
//   - Dump: an answer in parts (NLM_F_MULTI), each written by DumpPart into one datagram, and
//     ended by NLMSG_DONE in a datagram of its own, as Linux's rtnl_dumpit does since 6.10
//     (RTNL_FLAG_DUMP_SPLIT_NLM_DONE) and as every Linux did for links and addresses before.
//   - Link: one interface as the kernel describes it (lo, eth0): what RTM_NEWLINK and
//     RTM_NEWADDR report.
//
// # What Linux answers, and what this package answers
//
// Next follows net/netlink/af_netlink.c netlink_rcv_skb and net/core/rtnetlink.c
// rtnetlink_rcv_msg step by step:
//
//   - a message shorter than its header, or whose nlmsg_len runs past the data, ends the
//     request silently (the system call still succeeds);
//   - a message without NLM_F_REQUEST, or of a control type (below NLMSG_MIN_TYPE), is only
//     acknowledged, and only if it asks for an ack (NLM_F_ACK);
//   - a type beyond RTM_MAX is EOPNOTSUPP; a payload shorter than struct rtgenmsg is ignored;
//   - RTM_GETLINK and RTM_GETADDR with NLM_F_DUMP (either of its bits) start a dump, answered
//     without an ack; RTM_GETLINK without it answers one link, chosen by ifi_index or else by
//     IFLA_IFNAME or IFLA_ALT_IFNAME (EINVAL if none, ENODEV if there is no such link; the name
//     attributes and IFLA_EXT_MASK are checked as Linux's ifla_policy checks them: ERANGE);
//   - every other type is EOPNOTSUPP: the interface table is read-only (no RTM_NEW*, DEL*,
//     SET*) and the kernel has no routes, neighbours or rules to dump. Linux, which has them,
//     answers those with data or with a different errno; a program sees that the kernel
//     cannot do it.
//
// Errors and acks are struct nlmsgerr as netlink_ack writes them: an error carries a copy of
// the request (unless NETLINK_CAP_ACK), an ack only its header and NLM_F_CAPPED.
//
// Addresses are IPv4 only: the dumps are those of a Linux booted with ipv6.disable=1. The
// family byte of a request is not looked at, which is also what such a Linux does (the
// families without a handler of their own fall back to AF_UNSPEC's, which dumps them all).
//
// # Contexts
//
// Every function may run in trap context (kernel/doc.go): no allocation, no maps, no
// interfaces, small frames; a request is untrusted data (FuzzNext), and every length in it
// is checked before it is used.
//
// # Cross-reading (Linux 6.18)
//
//	Next                   net/netlink/af_netlink.c netlink_rcv_skb, net/core/rtnetlink.c
//	                       rtnetlink_rcv_msg, rtnl_getlink + rtnl_valid_getlink_req
//	PutError               net/netlink/af_netlink.c netlink_ack
//	PutLink                net/core/rtnetlink.c rtnl_fill_ifinfo (a subset of its attributes)
//	PutAddr                net/ipv4/devinet.c inet_fill_ifaddr
//	PutDone                net/netlink/af_netlink.c netlink_dump_done
//	DumpPart               netlink_dump + rtnl_dump_ifinfo / inet_dump_ifaddr
//
// # References
//
// include/uapi/linux/netlink.h, rtnetlink.h, if_link.h, if_addr.h, if_arp.h, if.h;
// netlink(7), rtnetlink(7); RFC 3549 (Linux Netlink as an IP Services Protocol).
package rtnetlink
