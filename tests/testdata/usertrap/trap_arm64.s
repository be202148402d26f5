#include "textflag.h"

// func brk()
TEXT ·brk(SB), NOSPLIT, $0-0
	BRK	$0
	RET

// func udf()
TEXT ·udf(SB), NOSPLIT, $0-0
	WORD	$0x00000000 // UDF #0: permanently undefined (ARM ARM C6.2 UDF)
	RET
