package ibfabric

import (
	"os"
	"testing"
)

// FuzzParseSMIR: any text is read or refused, never a panic, and a record
// read has its state in SMInfo's range or says what it read.
func FuzzParseSMIR(f *testing.F) {
	if b, err := os.ReadFile("testdata/two-sms-saquery-smir.txt"); err == nil {
		f.Add(string(b))
	}
	f.Add("SMInfoRecord dump:\n\t\tLID...1\n\t\tGUID...0x1\n\t\tSMState...3\n")
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := ParseSMIR(s)
		if err != nil && recs != nil {
			t.Errorf("records %v beside error %v", recs, err)
		}
	})
}
