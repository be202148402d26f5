package kernel

import "gmpos/kernel/mm"

// TEMPORARY until kernel/mm has MapDevice.
func mapDevice(pa, size uintptr) bool {
	for p := pa &^ (mm.PageSize - 1); p < pa+size; p += mm.PageSize {
		if _, _, ok := mm.Kernel.Lookup(p); ok {
			continue
		}
		if mm.Kernel.Map(p, p, mm.PTEWrite|mm.PTECacheDisable|mm.PTEWriteThrough|mm.PTENoExec) != mm.OK ||
			mm.Space.RegisterFixed(p, mm.PageSize, mm.PROT_NONE) != mm.OK {
			return false
		}
	}
	return true
}
