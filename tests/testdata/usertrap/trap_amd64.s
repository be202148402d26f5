#include "textflag.h"

// func int3()
TEXT ·int3(SB), NOSPLIT, $0-0
	BYTE $0xCC // INT3
	RET

// func int4()
TEXT ·int4(SB), NOSPLIT, $0-0
	BYTE $0xCD; BYTE $0x04 // INT 4
	RET
