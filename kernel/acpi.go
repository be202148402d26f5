package kernel

// Just enough ACPI to count the processors: RSDP → RSDT/XSDT → MADT ("APIC"), whose Processor
// Local APIC entries (type 0) and x2APIC entries (type 9) list the cores with an Enabled or
// Online Capable flag (ACPI 6.5 §5.2.5 RSDP, §5.2.7-8 RSDT/XSDT, §5.2.12 MADT, Tables 5.21, 5.23).
// The tables are read through the boot identity map, so this runs before the kernel page table
// is loaded (the ACPI areas are not usable RAM, so the direct map does not cover them).

// countCPUs returns the number of enabled processors the MADT lists, or 0 if there is no usable
// MADT (the kernel then counts the cores that answer the start-up IPI).
func countCPUs() int {
	rsdp := findRSDP()
	if rsdp == 0 {
		return 0
	}
	var sdt uintptr
	entry := uintptr(4)
	if *(*byte)(ptr(rsdp + 15)) >= 2 && peek64(rsdp+24) != 0 && peek64(rsdp+24) < 1<<32 {
		sdt, entry = uintptr(peek64(rsdp+24)), 8 // XSDT: 64-bit entries
	} else {
		sdt = uintptr(peek32(rsdp + 16)) // RSDT: 32-bit entries
	}
	if sdt == 0 || !checksum(sdt, uintptr(peek32(sdt+4))) {
		return 0
	}
	n := (uintptr(peek32(sdt+4)) - 36) / entry
	for i := uintptr(0); i < n; i++ {
		var t uintptr
		if entry == 8 {
			t = uintptr(peek64(sdt + 36 + 8*i))
		} else {
			t = uintptr(peek32(sdt + 36 + 4*i))
		}
		if t != 0 && t < 1<<32 && peek32(t) == 0x43495041 /* "APIC" */ && checksum(t, uintptr(peek32(t+4))) {
			return madtProcessors(t)
		}
	}
	return 0
}

func madtProcessors(madt uintptr) int {
	end := madt + uintptr(peek32(madt+4))
	count := 0
	for p := madt + 44; p+2 <= end; {
		typ, length := *(*byte)(ptr(p)), uintptr(*(*byte)(ptr(p + 1)))
		if length < 2 {
			break
		}
		switch typ {
		case 0: // Processor Local APIC: flags at +4
			if peek32(p+4)&3 != 0 {
				count++
			}
		case 9: // Processor Local x2APIC: flags at +8
			if peek32(p+8)&3 != 0 {
				count++
			}
		}
		p += length
	}
	return count
}

// findRSDP searches the BIOS read-only area for the "RSD PTR " signature on a 16-byte boundary
// (ACPI §5.2.5.1; the EBDA is not searched: SeaBIOS and most firmware place it here).
func findRSDP() uintptr {
	for p := uintptr(0xe0000); p < 0x100000; p += 16 {
		if peek64(p) == 0x2052545020445352 /* "RSD PTR " */ && checksum(p, 20) {
			return p
		}
	}
	return 0
}

func checksum(p, n uintptr) bool {
	if n == 0 || n > 1<<20 {
		return false
	}
	var sum byte
	for i := uintptr(0); i < n; i++ {
		sum += *(*byte)(ptr(p + i))
	}
	return sum == 0
}
