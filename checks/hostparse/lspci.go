package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PCIDevice is one device block of lspci -vv/-vvv, reduced to what a preflight
// checks: where it is, its NUMA node, its PCIe link and its AER status.
type PCIDevice struct {
	// Address is the BDF ("17:00.0", or "0000:17:00.0" with -D); empty when
	// the capture began inside the block (Partial).
	Address     string      `json:"address,omitempty"`
	Class       string      `json:"class,omitempty"`       // "PCI bridge", "3D controller [0302]"
	Description string      `json:"description,omitempty"` // "NVIDIA Corporation Device 2330 (rev a1)"
	NUMANode    *int        `json:"numaNode,omitempty"`    // "NUMA node:"; /sys/bus/pci/devices/<bdf>/numa_node
	LinkCap     *PCIeLink   `json:"linkCap,omitempty"`     // "LnkCap:"; /sys/bus/pci/devices/<bdf>/max_link_{speed,width}
	LinkSta     *LinkStatus `json:"linkSta,omitempty"`     // "LnkSta:"; /sys/bus/pci/devices/<bdf>/current_link_{speed,width}
	AER         *AER        `json:"aer,omitempty"`         // the Advanced Error Reporting capability
	Driver      string      `json:"driver,omitempty"`      // "Kernel driver in use:"
	// Bus is a bridge's "Bus: primary=15, secondary=16, subordinate=1c": the
	// buses below it, from which the PCIe tree is rebuilt.
	Bus *PCIBus `json:"bus,omitempty"`
	// MaxPayload and MaxReadReq are DevCtl's sizes in bytes (0: not printed).
	MaxPayload int `json:"maxPayload,omitempty"`
	MaxReadReq int `json:"maxReadReq,omitempty"`
	// ACS lists the Access Control Services controls set ('+') in ACSCtl
	// (SrcValid, ReqRedir, CmpltRedir, …); nil without the capability.
	ACS []string `json:"acs,omitempty"`
	// DevSta lists the error bits set ('+') in the PCIe Device Status
	// register: CorrErr, NonFatalErr, FatalErr, UnsupReq (older pciutils
	// printed NonFatalErr as UncorrErr and UnsupReq as UnsuppReq; they
	// are stored under the current names). /sys/bus/pci/devices/<bdf>/aer_dev_*
	// count what these bits latch.
	DevSta  []string `json:"devSta,omitempty"`
	Partial bool     `json:"partial,omitempty"`
	// BadNumbers holds its registers' numbers that do not fit (a width of
	// x99999999999999999999), left out.
	NumberErrors
}

// PCIBus is the bus range behind a bridge.
type PCIBus struct {
	Primary     int `json:"primary"`
	Secondary   int `json:"secondary"`
	Subordinate int `json:"subordinate"`
}

// PCIeLink is a link speed and width.
type PCIeLink struct {
	Speed string  `json:"speed,omitempty"` // as printed: "32GT/s", "2.5GT/s", "unknown"
	GTps  float64 `json:"gtps,omitempty"`  // the speed as a number, 0 when unknown
	Width int     `json:"width,omitempty"` // lanes: 16 for x16
}

// LinkStatus is the negotiated link and lspci's verdict on it.
type LinkStatus struct {
	PCIeLink
	// SpeedDowngraded and WidthDowngraded are lspci's "(downgraded)" marks;
	// older lspci prints none, and they are then derived from LnkCap.
	SpeedDowngraded bool `json:"speedDowngraded,omitempty"`
	WidthDowngraded bool `json:"widthDowngraded,omitempty"`
}

// AER holds the error bits lspci shows set ('+') in the uncorrectable and
// correctable status registers.
type AER struct {
	Uncorrectable []string `json:"uncorrectable,omitempty"` // UESta: DLP, SDES, TLP, CmpltTO, …
	Correctable   []string `json:"correctable,omitempty"`   // CESta: RxErr, BadTLP, BadDLLP, Timeout, AdvNonFatalErr, …
}

var (
	pciHeaderRe = regexp.MustCompile(`^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]+):\s*(.*)$`)
	lnkSpeedRe  = regexp.MustCompile(`Speed ([0-9.]+GT/s|unknown)(?:\s*\((\w+)\))?`)
	lnkWidthRe  = regexp.MustCompile(`Width x(\d+)(?:\s*\((\w+)\))?`)
	busRangeRe  = regexp.MustCompile(`^Bus: primary=([0-9a-fA-F]+), secondary=([0-9a-fA-F]+), subordinate=([0-9a-fA-F]+)`)
	devCtlRe    = regexp.MustCompile(`MaxPayload (\d+) bytes, MaxReadReq (\d+) bytes`)
)

// ParsePCI reads lspci -vv or -vvv output: any number of device blocks, or a
// fragment of one (a capture that starts mid-block yields a Partial device).
func ParsePCI(r io.Reader) ([]PCIDevice, error) {
	var out []PCIDevice
	var cur *PCIDevice
	dev := func() *PCIDevice {
		if cur == nil {
			out = append(out, PCIDevice{Partial: true})
			cur = &out[len(out)-1]
		}
		return cur
	}
	// again returns the device a register belongs to: in a capture without
	// device headers (lspci -vvv | grep LnkCap), a register the partial
	// block already holds, or a LnkCap after its LnkSta, starts the next one.
	again := func(seen bool) *PCIDevice {
		if cur != nil && cur.Partial && seen {
			cur = nil
		}
		return dev()
	}
	content := false
	err := scan(r, func(n, indent int, raw string) {
		s := strings.TrimSpace(raw)
		if indent == 0 {
			if m := pciHeaderRe.FindStringSubmatch(s); m != nil {
				out = append(out, PCIDevice{Address: m[1], Class: m[2], Description: m[3]})
				cur = &out[len(out)-1]
				content = true
				return
			}
		}
		if m := busRangeRe.FindStringSubmatch(s); m != nil {
			d := dev()
			hex := func(x string) int {
				v, err := strconv.ParseInt(x, 16, 32)
				if err != nil {
					d.bad(n, "bus number", x, "is too large")
				}
				return int(v)
			}
			d.Bus = &PCIBus{Primary: hex(m[1]), Secondary: hex(m[2]), Subordinate: hex(m[3])}
			content = true
			return
		}
		if m := devCtlRe.FindStringSubmatch(s); m != nil {
			d := dev()
			d.MaxPayload, _ = d.index(n, "MaxPayload", m[1])
			d.MaxReadReq, _ = d.index(n, "MaxReadReq", m[2])
			content = true
			return
		}
		key, val, ok := splitKV(s)
		if !ok {
			return
		}
		switch key {
		case "ACSCtl":
			dev().ACS = append([]string{}, setFlags(val)...)
			content = true
		case "NUMA node":
			if v, err := strconv.Atoi(val); err == nil {
				dev().NUMANode = &v
				content = true
			} else if numeric(val) {
				dev().bad(n, key, val, "is too large")
			}
		case "LnkCap":
			d := again(cur != nil && (cur.LinkCap != nil || cur.LinkSta != nil))
			l := d.parseLink(n, val)
			d.LinkCap = &l.PCIeLink
			content = true
		case "LnkSta":
			d := again(cur != nil && cur.LinkSta != nil)
			l := d.parseLink(n, val)
			d.LinkSta = &l
			content = true
		case "DevSta":
			d := again(cur != nil && cur.DevSta != nil)
			d.DevSta = devStaErrors(val)
			content = true
		case "UESta":
			d := dev()
			if d.AER == nil {
				d.AER = &AER{}
			}
			d.AER.Uncorrectable = setFlags(val)
			content = true
		case "CESta":
			d := dev()
			if d.AER == nil {
				d.AER = &AER{}
			}
			d.AER.Correctable = setFlags(val)
			content = true
		case "Kernel driver in use":
			dev().Driver = val
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing lspci output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing lspci output: %w", ErrNoData)
	}
	for i := range out {
		out[i].deriveDowngrade()
	}
	return out, nil
}

// parseLink reads line n's link speed and width; a figure that does not fit
// is left out (zero: unknown) and recorded in d's BadNumbers.
func (d *PCIDevice) parseLink(n int, val string) LinkStatus {
	var l LinkStatus
	if m := lnkSpeedRe.FindStringSubmatch(val); m != nil {
		l.Speed = m[1]
		if m[1] != "unknown" {
			l.GTps, _ = d.rate(n, "link speed", strings.TrimSuffix(m[1], "GT/s"))
		}
		l.SpeedDowngraded = m[2] == "downgraded"
	}
	if m := lnkWidthRe.FindStringSubmatch(val); m != nil {
		l.Width, _ = d.index(n, "link width", m[1])
		l.WidthDowngraded = m[2] == "downgraded"
	}
	return l
}

// devStaNames maps the DevSta error bits as pciutils printed them in every
// version (ls-caps.c, cap_express_dev) to their current names.
var devStaNames = map[string]string{
	"CorrErr": "CorrErr", "NonFatalErr": "NonFatalErr", "UncorrErr": "NonFatalErr",
	"FatalErr": "FatalErr", "UnsupReq": "UnsupReq", "UnsuppReq": "UnsupReq",
}

// devStaErrors returns the error bits set in a DevSta line, never nil.
func devStaErrors(val string) []string {
	set := []string{}
	for _, f := range setFlags(val) {
		if name, ok := devStaNames[f]; ok {
			set = append(set, name)
		}
	}
	return set
}

// setFlags returns the names of the flags printed with '+'.
func setFlags(val string) []string {
	var set []string
	for _, f := range strings.Fields(val) {
		if name, ok := strings.CutSuffix(strings.TrimSuffix(f, ","), "+"); ok && name != "" {
			set = append(set, name)
		}
	}
	return set
}

// deriveDowngrade compares LnkSta with LnkCap when lspci printed no verdict.
func (d *PCIDevice) deriveDowngrade() {
	if d.LinkCap == nil || d.LinkSta == nil {
		return
	}
	if d.LinkSta.GTps > 0 && d.LinkSta.GTps < d.LinkCap.GTps {
		d.LinkSta.SpeedDowngraded = true
	}
	if d.LinkSta.Width > 0 && d.LinkSta.Width < d.LinkCap.Width {
		d.LinkSta.WidthDowngraded = true
	}
}

// Problems lists what a preflight reports about the device: a link running
// below its capability, AER status bits and DevSta error bits set.
func (d PCIDevice) Problems() []string {
	var p []string
	name := d.Address
	if name == "" {
		name = "device"
	}
	if s := d.LinkSta; s != nil {
		capSpeed, capWidth := "", ""
		if c := d.LinkCap; c != nil {
			capSpeed, capWidth = " "+c.Speed, fmt.Sprintf(" x%d", c.Width)
		}
		if s.SpeedDowngraded {
			p = append(p, fmt.Sprintf("%s: link speed %s is below its capability%s", name, s.Speed, capSpeed))
		}
		if s.WidthDowngraded {
			p = append(p, fmt.Sprintf("%s: link width x%d is below its capability%s", name, s.Width, capWidth))
		}
	}
	if d.AER != nil {
		if len(d.AER.Uncorrectable) > 0 {
			p = append(p, fmt.Sprintf("%s: AER uncorrectable errors: %s", name, strings.Join(d.AER.Uncorrectable, " ")))
		}
		if len(d.AER.Correctable) > 0 {
			p = append(p, fmt.Sprintf("%s: AER correctable errors: %s", name, strings.Join(d.AER.Correctable, " ")))
		}
	}
	if len(d.DevSta) > 0 {
		p = append(p, fmt.Sprintf("%s: DevSta error bits set: %s", name, strings.Join(d.DevSta, " ")))
	}
	return p
}

// bus returns the bus number and PCI domain of a device address
// ("0000:17:00.0" → 0x17, "0000"; "17:00.0" → 0x17, "").
func (d PCIDevice) bus() (int, string, bool) {
	a := d.Address
	domain := ""
	if strings.Count(a, ":") == 2 {
		domain, a, _ = strings.Cut(a, ":")
	}
	b, _, ok := strings.Cut(a, ":")
	if !ok {
		return 0, "", false
	}
	v, err := strconv.ParseInt(b, 16, 32)
	return int(v), strings.TrimLeft(domain, "0"), err == nil
}

// Upstream returns the bridges above the device with address addr, nearest
// first, as far as the capture shows them: each is the bridge whose
// secondary bus is the bus of the one below. ok is false when addr is not in
// the capture.
func Upstream(devs []PCIDevice, addr string) (chain []PCIDevice, ok bool) {
	idx := slices.IndexFunc(devs, func(d PCIDevice) bool { return d.Address == addr })
	if idx < 0 {
		return nil, false
	}
	cur := devs[idx]
	for range len(devs) {
		bus, dom, ok := cur.bus()
		if !ok {
			break
		}
		j := slices.IndexFunc(devs, func(d PCIDevice) bool {
			_, ddom, _ := d.bus()
			return d.Bus != nil && d.Bus.Secondary == bus && ddom == dom && d.Address != cur.Address
		})
		if j < 0 {
			break
		}
		cur = devs[j]
		chain = append(chain, cur)
	}
	return chain, true
}

// PathBridges returns the bridges between devices a and b below their
// nearest common bridge (the switch ports a peer-to-peer transfer crosses),
// and whether the capture shows a common bridge at all.
func PathBridges(devs []PCIDevice, a, b string) (bridges []PCIDevice, common bool) {
	ua, okA := Upstream(devs, a)
	ub, okB := Upstream(devs, b)
	if !okA || !okB {
		return nil, false
	}
	for i, x := range ua {
		for j, y := range ub {
			if x.Address == y.Address {
				return append(slices.Clone(ua[:i]), ub[:j]...), true
			}
		}
	}
	return append(slices.Clone(ua), ub...), false
}

// ACSRedirects reports whether the device's ACS controls redirect
// peer-to-peer requests or completions up to the root complex (ReqRedir+ or
// CmpltRedir+): GPUDirect RDMA traffic through this port then detours through
// the CPU, or fails where the IOMMU blocks it.
func (d PCIDevice) ACSRedirects() bool {
	return slices.Contains(d.ACS, "ReqRedir") || slices.Contains(d.ACS, "CmpltRedir")
}

// LinkPartner returns the device at the other end of d's PCIe link, as far
// as the capture shows it: for a bridge, the first device on its secondary
// bus; for any other device, the bridge whose secondary bus it sits on.
func LinkPartner(devs []PCIDevice, d PCIDevice) (PCIDevice, bool) {
	bus, dom, ok := d.bus()
	if !ok {
		return PCIDevice{}, false
	}
	for _, o := range devs {
		if o.Address == d.Address {
			continue
		}
		obus, odom, ok := o.bus()
		if !ok || odom != dom {
			continue
		}
		if d.Bus != nil && obus == d.Bus.Secondary {
			return o, true
		}
		if o.Bus != nil && o.Bus.Secondary == bus && (d.Bus == nil || d.Bus.Primary == bus) {
			return o, true
		}
	}
	return PCIDevice{}, false
}
