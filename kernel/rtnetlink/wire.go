// Netlink and rtnetlink wire constants and the message header.
// SPDX-License-Identifier: BSD-3-Clause

package rtnetlink

// Netlink (include/uapi/linux/netlink.h). All integers are in the host's byte order: little
// endian on every architecture gmpos runs on.
const (
	HdrLen  = 16 // NLMSG_HDRLEN: struct nlmsghdr
	alignTo = 4  // NLMSG_ALIGNTO, and NLA_ALIGNTO for attributes

	// nlmsg_flags
	FRequest = 0x1   // NLM_F_REQUEST: a request for the kernel
	FMulti   = 0x2   // NLM_F_MULTI: a part of a multipart answer
	FAck     = 0x4   // NLM_F_ACK: answer success with an ack
	FRoot    = 0x100 // NLM_F_ROOT
	FMatch   = 0x200 // NLM_F_MATCH
	FDump    = FRoot | FMatch
	FCapped  = 0x100 // NLM_F_CAPPED (on NLMSG_ERROR): the request's payload is not copied

	// nlmsg_type: control messages, below NLMSG_MIN_TYPE.
	TypeNoop    = 1
	TypeError   = 2
	TypeDone    = 3
	TypeOverrun = 4
	MinType     = 16 // NLMSG_MIN_TYPE

	ErrLen = 4 + HdrLen // struct nlmsgerr: int error, the request's nlmsghdr
)

// Routing messages (include/uapi/linux/rtnetlink.h). A type's kind is (type - RtmBase) & 3:
// NEW, DEL, GET, SET.
const (
	RtmBase    = 16
	RtmNewlink = 16
	RtmGetlink = 18
	RtmNewaddr = 20
	RtmGetaddr = 22
	RtmMax     = 123 // RTM_MAX in Linux 6.18: ((__RTM_MAX + 3) & ~3) - 1, __RTM_MAX = 123

	kindGet = 2

	rtgenmsgLen  = 1  // struct rtgenmsg: the family byte every request starts with
	IfinfomsgLen = 16 // struct ifinfomsg
	IfaddrmsgLen = 8  // struct ifaddrmsg
)

// Link attributes (include/uapi/linux/if_link.h), those PutLink writes and Next reads.
const (
	IflaAddress      = 1
	IflaBroadcast    = 2
	IflaIfname       = 3
	IflaMTU          = 4
	IflaTxqlen       = 13
	IflaOperstate    = 16
	IflaLinkmode     = 17
	IflaExtMask      = 29
	IflaNumTxQueues  = 31
	IflaNumRxQueues  = 32
	IflaCarrier      = 33
	IflaAltIfname    = 53
	nlaTypeMask      = 0x3fff // the nla_type bits below NLA_F_NESTED and NLA_F_NET_BYTEORDER
	ifNameSize       = 16     // IFNAMSIZ, with the NUL
	altIfNameSize    = 128    // ALTIFNAMSIZ, with the NUL
	IfOperUnknown    = 0      // IF_OPER_UNKNOWN: lo's state, which has no carrier to speak of
	IfOperUp         = 6      // IF_OPER_UP
	ArphrdEther      = 1      // ARPHRD_ETHER (include/uapi/linux/if_arp.h)
	ArphrdLoopback   = 772    // ARPHRD_LOOPBACK
	defaultTxQueueLn = 1000   // DEFAULT_TX_QUEUE_LEN, lo's and a virtio-net NIC's
)

// Interface flags (include/uapi/linux/if.h), as dev_get_flags reports them.
const (
	IffUp        = 0x1
	IffBroadcast = 0x2
	IffLoopback  = 0x8
	IffRunning   = 0x40
	IffMulticast = 0x1000
	IffLowerUp   = 0x10000
)

// Address attributes and flags (include/uapi/linux/if_addr.h).
const (
	IfaAddress    = 1
	IfaLocal      = 2
	IfaLabel      = 3
	IfaBroadcast  = 4
	IfaCacheinfo  = 6
	IfaFlags      = 8
	IfaFPermanent = 0x80 // IFA_F_PERMANENT: configured, not learnt
	RtScopeHost   = 254  // RT_SCOPE_HOST (rtnetlink.h): lo's address
	RtScopeGlobal = 0    // RT_SCOPE_UNIVERSE
	afInet        = 2
)

// Linux errno values that requests are answered with (asm-generic/errno-base.h, errno.h).
const (
	ENODEV     = 19
	EINVAL     = 22
	ERANGE     = 34
	EMSGSIZE   = 90
	EOPNOTSUPP = 95
)

// Header is struct nlmsghdr.
type Header struct {
	Len   uint32 // nlmsg_len: header and payload, without the padding after it
	Type  uint16 // nlmsg_type
	Flags uint16 // nlmsg_flags
	Seq   uint32 // nlmsg_seq: the request's, echoed in its answers
	Pid   uint32 // nlmsg_pid: the sender's port id (0: the kernel); answers carry the socket's
}

// align is NLMSG_ALIGN (and NLA_ALIGN), without overflow for any uint32.
func align(n uint32) uint64 { return (uint64(n) + alignTo - 1) &^ (alignTo - 1) }

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// header decodes the nlmsghdr at the start of b, which holds at least HdrLen bytes.
func header(b []byte) Header {
	return Header{Len: le32(b[0:]), Type: le16(b[4:]), Flags: le16(b[6:]), Seq: le32(b[8:]), Pid: le32(b[12:])}
}
