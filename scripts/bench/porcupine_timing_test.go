// A test copied into a checkout of Porcupine (github.com/anishathalye/porcupine)
// by scripts/bench/porcupine_side_by_side.sh: it times Porcupine's check of each
// of its own etcd and kv histories with the models and parsers of Porcupine's
// porcupine_test.go (etcdModel, kvModel with its partitions, parseJepsenLog,
// parseKvLog), the best of LOCKSMITH_ROUNDS runs, and prints one line a file:
// "TIMING name valid|invalid seconds". Parsing is not timed, as
// checker_bench --dir does not time loading on the locksmith side.
package porcupine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLocksmithTiming(t *testing.T) {
	rounds, err := strconv.Atoi(os.Getenv("LOCKSMITH_ROUNDS"))
	if err != nil || rounds < 1 {
		rounds = 5
	}
	etcd, _ := filepath.Glob("test_data/jepsen/etcd_*.log")
	kv, _ := filepath.Glob("test_data/kv/*.txt")
	sort.Strings(etcd)
	sort.Strings(kv)
	type history struct {
		name   string
		model  Model
		events []Event
	}
	var histories []history
	for _, f := range etcd {
		histories = append(histories, history{filepath.Base(f), etcdModel, parseJepsenLog(f)})
	}
	for _, f := range kv {
		histories = append(histories, history{filepath.Base(f), kvModel, parseKvLog(f)})
	}
	for _, h := range histories {
		best := time.Duration(0)
		verdict := false
		for r := 0; r < rounds; r++ {
			start := time.Now()
			verdict = CheckEvents(h.model, h.events)
			if took := time.Since(start); r == 0 || took < best {
				best = took
			}
		}
		name := map[bool]string{true: "valid", false: "invalid"}[verdict]
		fmt.Printf("TIMING %s %s %.6f\n", strings.TrimSuffix(h.name, ""), name, best.Seconds())
	}
}
