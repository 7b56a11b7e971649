package fabric

// Budgets of one Load (the constants below): every file of a load
// together may hold maxInput bytes, checked while reading; every document
// together may hold maxNodes YAML nodes, estimated before a file is parsed
// (estimateNodes) and counted again, aliases expanded, while decoding; at
// most maxErrors errors are kept, none quoting more than maxQuoted bytes of
// a value. So no document, however hostile, costs more than the largest
// fabric the budgets admit.

// Limits that keep hostile input from exhausting memory.
const (
	maxInput     = 4 << 20 // bytes of every file of one load together (a 2,000-host fabric is 0.4 MB)
	maxDocs      = 1000    // documents per file
	maxNodes     = 500000  // YAML nodes of one load: estimated before parsing, visited (aliases each time) while decoding
	maxDepth     = 64      // nesting depth
	maxAliasUses = 10000   // alias dereferences per load
	maxErrors    = 200     // errors reported per load; more are summarised
)

// maxQuoted bounds how much of a user's value one message quotes.
const maxQuoted = 64

// maxPathLen bounds the YAML path of an error (keys come from the file).
const maxPathLen = 256

// maxMsgLen bounds one message, whatever it quotes.
const maxMsgLen = 768
