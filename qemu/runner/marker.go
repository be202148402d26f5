// Start-marker stripping on the guest's stdout stream (COM1).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"io"
	"sync"
)

// StartMarker is what the kernel writes on COM1 at entry. Firmware
// (SeaBIOS) may print on COM1 before it; that is not guest output.
const StartMarker = "\x1b]gmpos-start\x07"

// maxFirmware bounds how much pre-marker output is kept for diagnostics.
const maxFirmware = 64 << 10

// MarkerWriter drops everything written to it up to and including the
// first StartMarker, then passes bytes through to W unchanged. The marker
// may be split across any number of Write calls.
type MarkerWriter struct {
	W io.Writer
	// OnStart, if set, is called once when the marker has been seen.
	OnStart func()
	// OnOutput, if set, is called before the first byte after the marker
	// is passed on.
	OnOutput func()

	mu       sync.Mutex
	started  bool
	output   bool
	pending  []byte // pre-marker bytes (bounded by maxFirmware)
	firmware []byte
}

// Write implements io.Writer. It always consumes all of p unless W fails.
func (m *MarkerWriter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return m.pass(p)
	}
	m.pending = append(m.pending, p...)
	i := bytes.Index(m.pending, []byte(StartMarker))
	if i < 0 {
		// Keep the tail that might be the start of a split marker, and at
		// most maxFirmware bytes of what came before it.
		if over := len(m.pending) - maxFirmware; over > 0 {
			m.pending = append(m.pending[:0], m.pending[over:]...)
		}
		return len(p), nil
	}
	m.started = true
	m.firmware = append([]byte(nil), m.pending[:i]...)
	rest := m.pending[i+len(StartMarker):]
	m.pending = nil
	if m.OnStart != nil {
		m.OnStart()
	}
	if _, err := m.pass(rest); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (m *MarkerWriter) pass(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !m.output {
		m.output = true
		if m.OnOutput != nil {
			m.OnOutput()
		}
	}
	return m.W.Write(p)
}

// Started reports whether the marker has been seen.
func (m *MarkerWriter) Started() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started
}

// Firmware returns what preceded the marker, or, if it never came, the
// last bytes received (bounded): the firmware banner or early garbage.
func (m *MarkerWriter) Firmware() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return m.firmware
	}
	return append([]byte(nil), m.pending...)
}
