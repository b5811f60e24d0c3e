package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// CPUMeter measures how many of the machine's cores were busy over a span
// of time, from /proc/stat: every process counts, the store's server
// among them, which is the point when the server runs on the same machine.
type CPUMeter struct {
	busy, total uint64
	cpus        int
	ok          bool
}

// StartCPU starts a measure; where /proc/stat cannot be read the measure
// reads 0.
func StartCPU() CPUMeter {
	var m CPUMeter
	m.busy, m.total, m.cpus, m.ok = machineTicks()
	return m
}

// Cores is the average number of cores busy since StartCPU.
func (m CPUMeter) Cores() float64 {
	busy, total, cpus, ok := machineTicks()
	if !m.ok || !ok || total <= m.total {
		return 0
	}
	return float64(busy-m.busy) / float64(total-m.total) * float64(cpus)
}

// machineTicks reads the busy and all clock ticks of the machine's cores
// (the first line of /proc/stat) and the number of cores listed.
func machineTicks() (busy, total uint64, cpus int, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) > 8 && fields[0] == "cpu":
			// user nice system idle iowait irq softirq steal (guest time
			// is counted in user already).
			for i, s := range fields[1:9] {
				v, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return 0, 0, 0, false
				}
				total += v
				if i != 3 && i != 4 {
					busy += v
				}
			}
			ok = true
		case strings.HasPrefix(fields[0], "cpu") && len(fields[0]) > 3:
			cpus++
		}
	}
	return busy, total, cpus, ok && cpus > 0
}
