package fabric

// classTC returns the class's traffic class (default: its priority), or -1.
func classTC(c *Class) int {
	if c.TrafficClass != nil {
		return *c.TrafficClass
	}
	if c.Priority != nil {
		return *c.Priority
	}
	return -1
}

// defaultToS is dscp<<2 with ECT(0) when the class marks ECN.
func defaultToS(c *Class) int {
	if len(c.DSCP.Values) == 0 {
		return 0
	}
	tos := c.DSCP.Values[0] << 2
	if c.ECN != nil && !c.ECN.Off {
		tos |= 2
	}
	return tos
}
