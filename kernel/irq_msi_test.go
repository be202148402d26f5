// Tests of MSI line allocation in the interrupt table.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

// TestIrqAllocMSI: MSI lines are handed out lowest first, each once, with the board's message,
// until none is left; wired lines stay with irqRegister.
func TestIrqAllocMSI(t *testing.T) {
	saved := irqTable
	defer func() { irqTable = saved }()
	first, n := board.MSILines()
	if n <= 0 {
		t.Skip("the board has no MSI lines")
	}
	h := func(line, cpu int) {}
	for i := 0; i < n; i++ {
		line, addr, data, ok := irqAllocMSI("t", 0x08, h)
		wa, wd, wok := board.MSIMessage(first+i, 0x08)
		if !ok || line != first+i || !wok || addr != wa || data != wd || irqTable[line].name != "t" {
			t.Fatalf("allocation %d: line %d message %#x/%#x ok %v", i, line, addr, data, ok)
		}
	}
	if line, _, _, ok := irqAllocMSI("t", 0x08, h); ok {
		t.Errorf("line %d allocated with every MSI line taken", line)
	}
	irqTable[first+1].handler = nil
	if line, _, _, ok := irqAllocMSI("t", 0x08, h); !ok || line != first+1 {
		t.Errorf("freed line: got %d %v", line, ok)
	}
	if irqRegister(first+1, "t", h) || irqRegister(first+n, "t", h) || irqRegister(-1, "t", h) {
		t.Error("irqRegister took a taken or missing line")
	}
}
