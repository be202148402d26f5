// struct virtio_net_hdr (§5.1.6) and the checks on the ones the device writes.
// SPDX-License-Identifier: BSD-3-Clause

package net

// Frame and buffer sizes.
const (
	HdrLen   = 12   // struct virtio_net_hdr with num_buffers (VIRTIO_F_VERSION_1, §5.1.6)
	BufSize  = 2048 // one receive or transmit buffer: header + frame; two per page
	MinFrame = 14   // an Ethernet header
	MaxFrame = 1514 // an Ethernet frame at MTU 1500, without FCS
)

// struct virtio_net_hdr field offsets (§5.1.6).
const (
	hdrFlags      = 0  // u8
	hdrGSOType    = 1  // u8
	hdrNumBuffers = 10 // le16
)

// Header flags and GSO types (§5.1.6).
const (
	hdrFNeedsCsum = 1 // VIRTIO_NET_HDR_F_NEEDS_CSUM: only with VIRTIO_NET_F_GUEST_CSUM
	hdrFDataValid = 2 // VIRTIO_NET_HDR_F_DATA_VALID: meaningful only with GUEST_CSUM; ignored
	hdrFRSCInfo   = 4 // VIRTIO_NET_HDR_F_RSC_INFO: only with VIRTIO_NET_F_GUEST_RSC4/6
	gsoNone       = 0 // VIRTIO_NET_HDR_GSO_NONE: any other value (ECN bit 0x80 too) needs GSO
)

// hdrOK checks a received header against what was negotiated (nothing but VERSION_1's
// num_buffers): §5.1.6.4.1 has the device set flags and gso_type to 0 without the offload
// features and num_buffers to 1 without MRG_RXBUF (QEMU leaves it as posted: 0, see doc.go).
// Flag bits the driver does not know are ignored, as §5.1.6.4.2 asks; DATA_VALID is ignored
// too (it would only spare us a checksum the stack computes anyway).
func hdrOK(flags, gso uint8, numBuffers uint16) bool {
	return flags&(hdrFNeedsCsum|hdrFRSCInfo) == 0 && gso == gsoNone && numBuffers <= 1
}
