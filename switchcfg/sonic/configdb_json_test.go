package sonic

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// ConfigDB.JSON must print exactly what json.MarshalIndent prints.
func TestConfigDBJSONMatchesMarshalIndent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	words := []string{"", "PORT_QOS_MAP", "Ethernet0", "Ethernet10", "AZURE", "<&>", "quo\"te", "tab\t", "é", "\xff", "0", "lossless"}
	pick := func() string { return words[rng.IntN(len(words))] }
	check := func(db ConfigDB) {
		t.Helper()
		want, err := json.MarshalIndent(db, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		if got := db.JSON(); string(got) != string(want)+"\n" {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	}
	check(nil)
	check(ConfigDB{})
	check(ConfigDB{"T": nil, "U": {"k": nil, "e": {}}})
	for i := 0; i < 500; i++ {
		db := ConfigDB{}
		for j := rng.IntN(4); j > 0; j-- {
			keys := map[string]map[string]string{}
			for k := rng.IntN(4); k > 0; k-- {
				fields := map[string]string{}
				for f := rng.IntN(4); f > 0; f-- {
					fields[pick()] = pick()
				}
				keys[pick()] = fields
			}
			db[pick()] = keys
		}
		check(db)
	}
}
