-- SPDX-License-Identifier: GPL-2.0
--
-- qcn.lua: Wireshark/tshark dissector for IEEE 802.1Qau Quantized
-- Congestion Notification frames, as linux-qcn sends and reads them:
--
--   EtherType 0x22E7  Congestion Notification Message (CNM) PDU
--   EtherType 0x22E9  CN-TAG: 2-octet Flow ID (RPID), then the next EtherType
--
-- The CNM layout and its checks are those of the project's codec,
-- include/qcn/qcn_cnm.h (qcn_cnm_decode), field for field:
--
--    0  Version(4) | Reserved(6) | qFb(6)        2 octets
--    2  CPID                                     8 octets (port MAC + index)
--   10  cnmQOffset, signed, units of 64 octets   2 octets
--   12  cnmQDelta,  signed, units of 64 octets   2 octets
--   14  Encapsulated priority, bits 15..13       2 octets (bits 12..0 reserved)
--   16  Encapsulated destination MAC             6 octets
--   22  Encapsulated MSDU length (0..64)         2 octets
--   24  Encapsulated MSDU                        from the sampled frame's EtherType
--
-- A frame the codec rejects gets cnm.error = the codec's error code
-- (-1 truncated, -2 version, -3 MSDU > 64, -4 MSDU past the frame,
-- -5 reserved bits) and an expert item; the fields present are still shown.
-- The encapsulated MSDU begins with the culprit's EtherType: the rest is
-- handed to the "ethertype" dissector table, so an encapsulated IPv4/UDP
-- header is dissected as such (truncated to the 64 copied octets).
--
-- Install (make install does it): copy into the global Lua plugin folder
-- (tshark -G folders: "Global Lua Plugins", on Debian
-- /usr/lib/x86_64-linux-gnu/wireshark/plugins) or the personal one
-- (~/.local/lib/wireshark/plugins); or load it once:
--   tshark -X lua_script:tools/wireshark/qcn.lua -r capture.pcap -Y cnm

local CNM_HDR_LEN = 24
local CNM_MSDU_MAX = 64
local CNM_Q_UNIT = 64

-- ------------------------------------------------------------------ CNM
local cnm = Proto("cnm", "IEEE 802.1Qau Congestion Notification Message")

local error_names = {
	[-1] = "truncated (fewer than 24 octets)",
	[-2] = "unsupported version",
	[-3] = "encapsulated MSDU longer than 64 octets",
	[-4] = "encapsulated MSDU runs past the frame",
	[-5] = "reserved bits set",
}

local f = cnm.fields
f.version = ProtoField.uint16("cnm.version", "Version", base.DEC, nil, 0xf000)
f.reserved = ProtoField.uint16("cnm.reserved", "Reserved", base.HEX, nil, 0x0fc0)
f.qfb = ProtoField.uint16("cnm.qfb", "Quantized feedback (qFb)", base.DEC, nil, 0x003f)
f.cpid = ProtoField.bytes("cnm.cpid", "Congestion point identifier (CPID)")
f.cpid_mac = ProtoField.ether("cnm.cpid.mac", "CP port MAC")
f.cpid_index = ProtoField.uint16("cnm.cpid.index", "CP index", base.DEC)
f.qoffset = ProtoField.int16("cnm.qoffset", "cnmQOffset (64-octet units)", base.DEC)
f.qoffset_octets = ProtoField.int32("cnm.qoffset.octets", "cnmQOffset in octets", base.DEC)
f.qdelta = ProtoField.int16("cnm.qdelta", "cnmQDelta (64-octet units)", base.DEC)
f.qdelta_octets = ProtoField.int32("cnm.qdelta.octets", "cnmQDelta in octets", base.DEC)
f.prio = ProtoField.uint16("cnm.prio", "Encapsulated priority", base.DEC, nil, 0xe000)
f.prio_reserved = ProtoField.uint16("cnm.prio.reserved", "Reserved", base.HEX, nil, 0x1fff)
f.encap_dst = ProtoField.ether("cnm.encap_dst", "Encapsulated destination MAC")
f.msdu_len = ProtoField.uint16("cnm.msdu_len", "Encapsulated MSDU length", base.DEC)
f.msdu = ProtoField.bytes("cnm.msdu", "Encapsulated MSDU")
f.msdu_etype = ProtoField.uint16("cnm.msdu.etype", "Encapsulated EtherType", base.HEX)
f.error = ProtoField.int8("cnm.error", "Decoder error", base.DEC, error_names)

local ef = {
	truncated = ProtoExpert.new("cnm.truncated", "CNM shorter than its 24 fixed octets",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("cnm.version.unsupported", "Unsupported CNM version (not 0)",
		expert.group.MALFORMED, expert.severity.ERROR),
	reserved = ProtoExpert.new("cnm.reserved.nonzero", "Reserved bits are not zero",
		expert.group.MALFORMED, expert.severity.ERROR),
	msdu_long = ProtoExpert.new("cnm.msdu_len.too_long", "Encapsulated MSDU length above 64",
		expert.group.MALFORMED, expert.severity.ERROR),
	msdu_trunc = ProtoExpert.new("cnm.msdu_len.past_end", "Encapsulated MSDU runs past the frame",
		expert.group.MALFORMED, expert.severity.ERROR),
}
cnm.experts = { ef.truncated, ef.version, ef.reserved, ef.msdu_long, ef.msdu_trunc }

local ethertype_table = DissectorTable.get("ethertype")
local data_dissector = Dissector.get("data")

-- Hand the MSDU (tvb(off, n), from its EtherType on) to the EtherType table.
local function dissect_msdu(tvb, off, n, pinfo, tree)
	local t = tree:add(f.msdu, tvb(off, n))
	if n < 2 then
		return
	end
	t:add(f.msdu_etype, tvb(off, 2))
	if n == 2 then
		return
	end
	-- the inner dissectors set the addresses: the CNM's own stay shown
	local src, dst, net_src, net_dst = pinfo.src, pinfo.dst, pinfo.net_src, pinfo.net_dst
	-- an exception in them (a header cut short) is shown in the tree and
	-- must not end the CNM's own dissection: pcall
	local payload = tvb(off + 2, n - 2):tvb()
	local ok, used = pcall(ethertype_table.try, ethertype_table, tvb(off, 2):uint(),
		payload, pinfo, t)
	if ok and used == 0 then
		data_dissector:call(payload, pinfo, t)
	end
	pinfo.src, pinfo.dst, pinfo.net_src, pinfo.net_dst = src, dst, net_src, net_dst
end

-- The codec's checks, in its order (qcn_cnm_decode): the first that fails.
local function codec_error(tvb)
	local len = tvb:len()
	if len < CNM_HDR_LEN then
		return -1
	end
	local w0 = tvb(0, 2):uint()
	if bit.rshift(w0, 12) ~= 0 then
		return -2
	end
	if bit.band(w0, 0x0fc0) ~= 0 or bit.band(tvb(14, 2):uint(), 0x1fff) ~= 0 then
		return -5
	end
	local mlen = tvb(22, 2):uint()
	if mlen > CNM_MSDU_MAX then
		return -3
	end
	if mlen > len - CNM_HDR_LEN then
		return -4
	end
	return 0
end

function cnm.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	local err = codec_error(tvb)
	local root = tree:add(cnm, tvb(0, math.min(len, CNM_HDR_LEN + CNM_MSDU_MAX)))

	if err == -1 then
		root:add(f.error, err):set_generated()
		root:add_proto_expert_info(ef.truncated)
		pinfo.cols.protocol:set("CNM")
		pinfo.cols.info:set(string.format("CNM, truncated (%d octets)", len))
		return len
	end

	local w0 = tvb(0, 2)
	local version = bit.rshift(w0:uint(), 12)
	local qfb = bit.band(w0:uint(), 0x3f)
	local qoff = tvb(10, 2):int()
	local qdelta = tvb(12, 2):int()
	local mlen = tvb(22, 2):uint()

	local vi = root:add(f.version, w0)
	local ri = root:add(f.reserved, w0)
	root:add(f.qfb, w0)
	local cp = root:add(f.cpid, tvb(2, 8))
	cp:add(f.cpid_mac, tvb(2, 6))
	cp:add(f.cpid_index, tvb(8, 2))
	root:add(f.qoffset, tvb(10, 2))
	root:add(f.qoffset_octets, qoff * CNM_Q_UNIT):set_generated()
	root:add(f.qdelta, tvb(12, 2))
	root:add(f.qdelta_octets, qdelta * CNM_Q_UNIT):set_generated()
	root:add(f.prio, tvb(14, 2))
	local pri = root:add(f.prio_reserved, tvb(14, 2))
	root:add(f.encap_dst, tvb(16, 6))
	local li = root:add(f.msdu_len, tvb(22, 2))

	if err ~= 0 then
		root:add(f.error, err):set_generated()
	end
	if err == -2 then
		vi:add_proto_expert_info(ef.version)
	elseif err == -5 then
		if bit.band(w0:uint(), 0x0fc0) ~= 0 then
			ri:add_proto_expert_info(ef.reserved)
		else
			pri:add_proto_expert_info(ef.reserved)
		end
	elseif err == -3 then
		li:add_proto_expert_info(ef.msdu_long)
	elseif err == -4 then
		li:add_proto_expert_info(ef.msdu_trunc)
	end

	-- the MSDU octets present (even in a frame the codec rejects)
	local have = math.min(mlen, CNM_MSDU_MAX, len - CNM_HDR_LEN)
	if have > 0 then
		dissect_msdu(tvb, CNM_HDR_LEN, have, pinfo, root)
	end

	-- after the MSDU's dissectors, which set the columns of the inner frame
	pinfo.cols.protocol:set("CNM")
	local info = string.format("CNM qFb=%d CPID=%s qOffset=%d qDelta=%d",
		qfb, tostring(tvb(2, 8):bytes()), qoff, qdelta)
	if err ~= 0 then
		info = info .. string.format(" [malformed: %s]", error_names[err])
	elseif version ~= 0 then
		info = info .. " version " .. version
	end
	pinfo.cols.info:set(info)
	-- the octets after the MSDU (Ethernet padding) are the caller's trailer
	return CNM_HDR_LEN + have
end

-- --------------------------------------------------------------- CN-TAG
local cntag = Proto("cntag", "IEEE 802.1Qau Congestion Notification Tag")
local g = cntag.fields
g.flowid = ProtoField.uint16("cntag.flowid", "Flow ID (RPID)", base.HEX)
g.etype = ProtoField.uint16("cntag.etype", "Type", base.HEX)
local ef_short = ProtoExpert.new("cntag.truncated", "CN-TAG shorter than 4 octets",
	expert.group.MALFORMED, expert.severity.ERROR)
cntag.experts = { ef_short }

function cntag.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	local t = tree:add(cntag, tvb(0, math.min(len, 4)))
	if len < 4 then
		t:add_proto_expert_info(ef_short)
		pinfo.cols.protocol:set("CN-TAG")
		return len
	end
	local flowid = tvb(0, 2):uint()
	local etype = tvb(2, 2):uint()
	t:add(g.flowid, tvb(0, 2))
	t:add(g.etype, tvb(2, 2))
	t:append_text(string.format(", Flow ID: 0x%04x", flowid))
	pinfo.cols.protocol:set("CN-TAG")
	pinfo.cols.info:set(string.format("CN-TAG Flow ID 0x%04x, type 0x%04x", flowid, etype))
	if len == 4 then
		return 4
	end
	local payload = tvb(4):tvb()
	local n = ethertype_table:try(etype, payload, pinfo, tree)
	if n == 0 then
		n = data_dissector:call(payload, pinfo, tree)
	end
	return 4 + n
end

ethertype_table:add(0x22e7, cnm)
ethertype_table:add(0x22e9, cntag)
