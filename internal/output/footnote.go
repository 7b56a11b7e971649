package output

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxNames is how many names Names lists before "and N more".
const MaxNames = 8

// Names lists names for a summary line or a footnote, the first MaxNames of
// them: "a, b, c", "a, …, h and 4 more".
func Names(names []string) string {
	if len(names) <= MaxNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:MaxNames], ", "), len(names)-MaxNames)
}

// Refs writes footnote numbers compactly, sorted and without repeats: [1],
// [3-6], [1,3,5-6].
func Refs(nums []int) string {
	nums = slices.Compact(slices.Sorted(slices.Values(nums)))
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		s := strconv.Itoa(nums[i])
		if j > i {
			s += "-" + strconv.Itoa(nums[j])
		}
		parts = append(parts, s)
		i = j + 1
	}
	return "[" + strings.Join(parts, ",") + "]"
}
