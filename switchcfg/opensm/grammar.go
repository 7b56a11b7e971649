package opensm

import (
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
)

// ErrMisread is wrapped by CheckRendered when OpenSM would read a rendered
// partitions.conf as something other than the intent.
var ErrMisread = errors.New("OpenSM would read the file differently from the intent")

// CheckRendered checks a partitions.conf against OpenSM's own grammar
// before anything is pushed, and that OpenSM would read it as want (a
// Desired table). It mirrors these rules of osm_prtn_config.c:
//
//   - osm_prtn_config_parse_file reads with fgets into a 4096-byte buffer
//     (size − 1): a line over MaxLine bytes is parsed as two lines;
//   - it cuts each line at its first '#' and only then looks for ';': a ';'
//     in a comment ends nothing, so the next partition's header is read as
//     a member ("PARSE ERROR: bad PortGUID");
//   - a '\r' is not white space to it: CRLF files fail on their first
//     member ("bad PortGUID");
//   - parse_part_conf needs the header's ':' on the header's line ("no
//     partition definition found"), splits the header at ',' into
//     name[=pkey] and flags (parse_name_token; partition_add_flag matches
//     flag words by prefix and only logs an unknown one), and the members
//     at ',' (partition_add_port: a GUID must be a whole strtoull number,
//     "bad PortGUID" otherwise; an unknown membership word is only logged,
//     at verbose level, and read as limited);
//   - osm_prtn_make_partitions, on any of those errors, drops the whole file
//     and applies "Default=0x7fff : ALL, SELF=full ;": every port a full
//     member of one partition, isolation gone.
//
// ParseFile implements the rules and refuses, as errors, the places where
// OpenSM only logs and guesses; CheckRendered adds the comparison with the
// intent. Every error names the line and column.
func CheckRendered(text string, want []fabric.PartitionIntent) error {
	got, err := ParseFile(text)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMisread, err)
	}
	if d := Compare(want, got.Partitions); len(d) != 0 {
		return fmt.Errorf("%w: %v", ErrMisread, d[0])
	}
	return nil
}
