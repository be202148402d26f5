// Control messages (§5.3.6.2): the port handshake, and what the device says later.
// SPDX-License-Identifier: BSD-3-Clause

package console

import (
	"encoding/binary"

	"gmpos/drivers/virtio"
)

// Control events (§5.3.6.2, Linux include/uapi/linux/virtio_console.h).
const (
	eventDeviceReady = 0 // driver → device: ready for PORT_ADD (value 1) or failed (0)
	eventPortAdd     = 1 // device → driver: a port exists
	eventPortRemove  = 2 // device → driver: it is gone
	eventPortReady   = 3 // driver → device: the port is set up (1) or failed (0)
	eventConsolePort = 4 // device → driver: the port is a console
	eventResize      = 5 // device → driver: a console's size changed
	eventPortOpen    = 6 // both ways: this side of the port is open (1) or closed (0)
	eventPortName    = 7 // device → driver: the port's name follows the message
	numControlEvents = 8
)

// Control is one decoded control message.
type Control struct {
	ID    uint32 // the port
	Event uint16
	Value uint16
}

// DecodeControl decodes a message the device wrote: the first 8 bytes of b (PORT_NAME's name
// follows them and is ignored). ok is false for a message shorter than 8 bytes or with an
// unknown event.
func DecodeControl(b []byte) (m Control, ok bool) {
	if len(b) < ctrlMsgSize {
		return Control{}, false
	}
	m = Control{
		ID:    binary.LittleEndian.Uint32(b[0:4]),
		Event: binary.LittleEndian.Uint16(b[4:6]),
		Value: binary.LittleEndian.Uint16(b[6:8]),
	}
	return m, m.Event < numControlEvents
}

// Poll processes the control messages the device has sent and takes back the driver's sent
// ones: the handshake of doc.go, and later a host side closing or the port going away (Open
// turns false). It also reaps the transmitq (Reap). Trap, interrupt or report context.
func (d *Device) Poll() {
	if !d.ready {
		return
	}
	d.reapControlTx()
	for i := 0; i < int(d.ctrlRx.Size()); i++ {
		tok, n, st := d.ctrlRx.Pop()
		if st == virtio.PopEmpty {
			break
		}
		if tok >= ctrlRxBufs {
			d.st.CtrlBad++ // not a buffer we posted (the queue hands back only our tokens)
			continue
		}
		if st == virtio.PopOK {
			// A copy of the 8 bytes: the device could rewrite the buffer while we decide.
			var msg [ctrlMsgSize]byte
			if n >= ctrlMsgSize {
				copy(msg[:], bytesAt(d.crxVirt+uintptr(tok)*ctrlBufSize, ctrlMsgSize))
			}
			d.control(msg[:min(int(n), ctrlMsgSize)])
		} else {
			d.st.CtrlBad++ // longer than the buffer (QEMU reports a PORT_NAME's full length)
		}
		d.postCtrlRx(uint16(tok))
	}
	d.ctrlRx.Kick()
	d.reap()
}

// control acts on one message.
func (d *Device) control(b []byte) {
	m, ok := DecodeControl(b)
	if !ok {
		d.st.CtrlBad++
		return
	}
	d.st.CtrlIn++
	if m.ID != d.port {
		return // another port: not ours to set up (we never answer, so the device leaves it alone)
	}
	switch m.Event {
	case eventPortAdd:
		if !d.added {
			// PORT_READY, then open our side (§5.3.6.2; Linux's add_port and
			// virtcons/port_fops_open do the same).
			d.added = d.sendControl(d.port, eventPortReady, 1) && d.sendControl(d.port, eventPortOpen, 1)
		}
	case eventPortRemove:
		d.added, d.hostOpen = false, false
	case eventPortOpen:
		d.hostOpen = m.Value != 0
	}
}

// sendControl queues one message for the device and notifies it. false if every slot is in
// flight (the device has not taken the earlier ones: counted).
func (d *Device) sendControl(id uint32, event, value uint16) bool {
	d.reapControlTx()
	if d.ctxFree == 0 {
		d.st.CtrlDropped++
		return false
	}
	slot := uint16(0)
	for d.ctxFree&(1<<slot) == 0 {
		slot++
	}
	p := bytesAt(d.ctxVirt+uintptr(slot)*ctrlMsgSize, ctrlMsgSize)
	binary.LittleEndian.PutUint32(p[0:4], id)
	binary.LittleEndian.PutUint16(p[4:6], event)
	binary.LittleEndian.PutUint16(p[6:8], value)
	if !d.ctrlTx.Add(d.ctxPhys+uint64(slot)*ctrlMsgSize, ctrlMsgSize, false, uint32(slot)) {
		d.st.CtrlDropped++
		return false
	}
	d.ctxFree &^= 1 << slot
	d.ctrlTx.Kick()
	d.st.CtrlOut++
	return true
}

// reapControlTx frees the slots of messages the device has taken.
func (d *Device) reapControlTx() {
	for i := 0; i < ctrlTxSlots; i++ {
		tok, _, st := d.ctrlTx.Pop()
		if st == virtio.PopEmpty {
			return
		}
		if tok < ctrlTxSlots {
			d.ctxFree |= 1 << tok
		}
	}
}

// postCtrlRx posts control receive buffer i (device-writable).
func (d *Device) postCtrlRx(i uint16) {
	if !d.ctrlRx.Add(d.crxPhys+uint64(i)*ctrlBufSize, ctrlBufSize, true, uint32(i)) {
		d.st.CtrlBad++ // a descriptor per buffer: cannot happen
	}
}
