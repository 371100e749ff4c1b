/*
 * eth_arp: ARP for the endpoint (RFC 826, Ethernet / IPv4).
 *
 * Inputs:
 *   s_arp_*      one descriptor per received ARP frame, already filtered by
 *                the RX parser to Ethernet/IPv4 ARP (htype 1, ptype 0x0800,
 *                hlen 6, plen 4) addressed to our MAC or broadcast.
 *   s_resolve_*  "which MAC has this IPv4 address?"
 * Outputs:
 *   m_resolve_*  one answer per resolve request, in order: the IP, the MAC and
 *                ok (0: no answer after REQUEST_RETRIES requests; MAC 0).
 *   m_axis_*     ARP frames, 42 bytes padded with zeros to 60 (no FCS):
 *                  dst MAC, src MAC = cfg_mac, 0x0806, htype 1, ptype 0x0800,
 *                  hlen 6, plen 4, oper, sha = cfg_mac, spa = cfg_ip, tha, tpa
 *                replies (oper 2, to the requester's MAC, tha / tpa = its
 *                sha / spa) to every request whose tpa is cfg_ip (probes
 *                with spa 0.0.0.0 included; none while cfg_ip is 0), our own
 *                requests (oper 1, to ff:ff:ff:ff:ff:ff, tha 0, tpa = the IP
 *                being resolved).
 *
 * The cache: CACHE_SIZE entries {IP, MAC}, looked up by comparing every entry
 * (a small CAM, one cycle), replaced round robin, never aged (entries are
 * only overwritten). Learning, per RFC 826, from every ARP request or reply
 * (oper 1 or 2) whose spa is neither 0.0.0.0 (a probe) nor cfg_ip:
 *   - spa cached: the entry's MAC becomes sha (the merge rule);
 *   - else spa being resolved: a new entry (and the resolve is answered);
 *   - else a request for cfg_ip: a new entry (the requester will talk to us).
 * A reply for cfg_ip from a host neither cached nor being resolved teaches
 * nothing (RFC 826 would add it; unsolicited replies are not trusted here).
 * Any such ARP from the IP being resolved answers the resolve, whatever its
 * oper and tpa.
 *
 * Resolving: one resolve at a time (s_resolve_ready is low from a miss until
 * its answer has been taken). A hit is answered in the next cycle, with no
 * frame; an ARP descriptor accepted in the same cycle that teaches the same
 * IP counts as a hit with its sha. A miss queues a request; its first beat
 * going out starts a timer, and REQUEST_RETRY_CYCLES cycles after that first
 * beat the next request's first beat is offered (exactly, when the output is
 * free and ready). After REQUEST_RETRIES requests in all and
 * REQUEST_RETRY_CYCLES more cycles, the answer ok = 0 is offered. A request
 * still queued (not yet loaded into the frame engine) when the answer comes
 * is dropped; one already loaded goes out.
 *
 * Frames: a one-frame engine holds the frame being sent in a register that
 * shifts one beat per handshake; the next frame is loaded in the cycle the
 * last beat goes, so frames go out back to back. A queued request goes before
 * a queued reply (requests come at most one per REQUEST_RETRY_CYCLES, so they
 * cannot starve replies). Replies wait in a one-entry slot; s_arp_ready is
 * low while it is full (a descriptor every cycle when no replies are due,
 * one reply per two cycles at most otherwise).
 *
 * Every output, the readies included, depends on registers only (no
 * combinational path from an input to an output).
 *
 * Counters (32 bits, wrapping, cleared by rst): arp_requests_in (every
 * accepted request, oper 1), arp_replies_out and arp_requests_out (frames
 * whose last beat has gone), resolve_ok and resolve_fail (answers taken).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module eth_arp #
(
    // Width of AXI stream interfaces in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 64,
    // tkeep signal width (words per cycle)
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    // ARP cache entries (a power of two)
    parameter CACHE_SIZE = 4,
    // cycles between the first beats of consecutive ARP requests (>= 3)
    parameter REQUEST_RETRY_CYCLES = 322266,
    // ARP requests sent for one resolve before giving up (>= 1)
    parameter REQUEST_RETRIES = 4
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Configuration
     */
    input  wire [47:0]            cfg_mac,
    input  wire [31:0]            cfg_ip,

    /*
     * Received ARP frames (fields in network order, as on the wire)
     */
    input  wire                   s_arp_valid,
    output wire                   s_arp_ready,
    input  wire [15:0]            s_arp_oper,
    input  wire [47:0]            s_arp_sha,
    input  wire [31:0]            s_arp_spa,
    input  wire [47:0]            s_arp_tha,
    input  wire [31:0]            s_arp_tpa,

    /*
     * Resolve request and answer
     */
    input  wire                   s_resolve_valid,
    output wire                   s_resolve_ready,
    input  wire [31:0]            s_resolve_ip,

    output wire                   m_resolve_valid,
    input  wire                   m_resolve_ready,
    output wire [31:0]            m_resolve_ip,
    output wire [47:0]            m_resolve_mac,
    output wire                   m_resolve_ok,

    /*
     * ARP frames out (no FCS)
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire                   m_axis_tuser,

    /*
     * Counters
     */
    output wire [31:0]            arp_requests_in,
    output wire [31:0]            arp_replies_out,
    output wire [31:0]            arp_requests_out,
    output wire [31:0]            resolve_ok,
    output wire [31:0]            resolve_fail
);

// ---------------------------------------------------------------------------
// Constants

localparam FRAME_BYTES = 60;        // 42 bytes of ARP frame, zero padded
localparam FRAME_BEATS = (FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam FRAME_WIDTH = FRAME_BEATS * DATA_WIDTH;
localparam LAST_BYTES = FRAME_BYTES - (FRAME_BEATS - 1) * KEEP_WIDTH;
localparam BEAT_WIDTH = FRAME_BEATS > 1 ? $clog2(FRAME_BEATS) : 1;
localparam LAST_BEAT_I = FRAME_BEATS - 1;
localparam [BEAT_WIDTH-1:0] LAST_BEAT = LAST_BEAT_I[BEAT_WIDTH-1:0];

localparam SLOT_WIDTH = CACHE_SIZE > 1 ? $clog2(CACHE_SIZE) : 1;
localparam LAST_SLOT_I = CACHE_SIZE - 1;
localparam [SLOT_WIDTH-1:0] LAST_SLOT = LAST_SLOT_I[SLOT_WIDTH-1:0];

// the timer counts down to 0 and expires there: a retry is queued in that
// cycle, loaded the next and offered the one after, hence the - 3; the
// failure answer is offered one cycle after expiry, hence the - 2
localparam TIMER_WIDTH = $clog2(REQUEST_RETRY_CYCLES + 1);
localparam RETRY_WAIT_I = REQUEST_RETRY_CYCLES - 3;
localparam FAIL_WAIT_I = REQUEST_RETRY_CYCLES - 2;
localparam [TIMER_WIDTH-1:0] RETRY_WAIT = RETRY_WAIT_I[TIMER_WIDTH-1:0];
localparam [TIMER_WIDTH-1:0] FAIL_WAIT = FAIL_WAIT_I[TIMER_WIDTH-1:0];

localparam SENT_WIDTH = $clog2(REQUEST_RETRIES + 1);
localparam [SENT_WIDTH-1:0] RETRIES = REQUEST_RETRIES[SENT_WIDTH-1:0];

localparam [15:0] OPER_REQUEST = 16'd1;
localparam [15:0] OPER_REPLY = 16'd2;

// parameter checks
initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if (CACHE_SIZE < 1 || (CACHE_SIZE & (CACHE_SIZE - 1)) != 0) begin
        $error("Error: CACHE_SIZE must be a power of two (instance %m)");
        $finish;
    end
    if (REQUEST_RETRY_CYCLES < 3) begin
        $error("Error: REQUEST_RETRY_CYCLES must be at least 3 (instance %m)");
        $finish;
    end
    if (REQUEST_RETRIES < 1) begin
        $error("Error: REQUEST_RETRIES must be at least 1 (instance %m)");
        $finish;
    end
end

// byte mask of the first n lanes
function [KEEP_WIDTH-1:0] lane_mask(input integer n);
    integer k;
    begin
        for (k = 0; k < KEEP_WIDTH; k = k + 1)
            lane_mask[k] = (k < n);
    end
endfunction

localparam [KEEP_WIDTH-1:0] LAST_KEEP = lane_mask(LAST_BYTES);

// ---------------------------------------------------------------------------
// State

// cache, entry n in bits [32*n +: 32] / [48*n +: 48]
reg [CACHE_SIZE-1:0]    cache_valid_reg = {CACHE_SIZE{1'b0}};
reg [32*CACHE_SIZE-1:0] cache_ip_reg = {32*CACHE_SIZE{1'b0}};
reg [48*CACHE_SIZE-1:0] cache_mac_reg = {48*CACHE_SIZE{1'b0}};
reg [SLOT_WIDTH-1:0]    cache_rr_reg = {SLOT_WIDTH{1'b0}};

// the resolve in progress
reg                     resolve_pending_reg = 1'b0;
reg [31:0]              resolve_ip_reg = 32'd0;
reg                     request_queued_reg = 1'b0;       // a request is queued
reg                     retry_timer_arm_reg = 1'b0;      // its frame is loaded, timer starts on its first beat
reg                     retry_timer_on_reg = 1'b0;       // timer running
reg [TIMER_WIDTH-1:0]   retry_timer_reg = {TIMER_WIDTH{1'b0}};
reg [SENT_WIDTH-1:0]    requests_sent_reg = {SENT_WIDTH{1'b0}};

// the reply waiting for the frame engine
reg                     reply_valid_reg = 1'b0;
reg [47:0]              reply_sha_reg = 48'd0;
reg [31:0]              reply_spa_reg = 32'd0;

// the frame engine
reg                     tx_valid_reg = 1'b0;
reg                     tx_is_request_reg = 1'b0;
reg [BEAT_WIDTH-1:0]    tx_beat_reg = {BEAT_WIDTH{1'b0}};
reg [FRAME_WIDTH-1:0]   tx_data_reg = {FRAME_WIDTH{1'b0}};

// the resolve answer
reg                     m_resolve_valid_reg = 1'b0;
reg [31:0]              m_resolve_ip_reg = 32'd0;
reg [47:0]              m_resolve_mac_reg = 48'd0;
reg                     m_resolve_ok_reg = 1'b0;

// counters
reg [31:0]              arp_requests_in_reg = 32'd0;
reg [31:0]              arp_replies_out_reg = 32'd0;
reg [31:0]              arp_requests_out_reg = 32'd0;
reg [31:0]              resolve_ok_reg = 32'd0;
reg [31:0]              resolve_fail_reg = 32'd0;

assign s_arp_ready = !reply_valid_reg;
assign s_resolve_ready = !resolve_pending_reg && !m_resolve_valid_reg;

assign m_resolve_valid = m_resolve_valid_reg;
assign m_resolve_ip = m_resolve_ip_reg;
assign m_resolve_mac = m_resolve_mac_reg;
assign m_resolve_ok = m_resolve_ok_reg;

wire tx_last = FRAME_BEATS == 1 || tx_beat_reg == LAST_BEAT;

assign m_axis_tdata = tx_data_reg[DATA_WIDTH-1:0];
assign m_axis_tkeep = tx_last ? LAST_KEEP : {KEEP_WIDTH{1'b1}};
assign m_axis_tvalid = tx_valid_reg;
assign m_axis_tlast = tx_last;
assign m_axis_tuser = 1'b0;

assign arp_requests_in = arp_requests_in_reg;
assign arp_replies_out = arp_replies_out_reg;
assign arp_requests_out = arp_requests_out_reg;
assign resolve_ok = resolve_ok_reg;
assign resolve_fail = resolve_fail_reg;

// the target hardware address of a received frame carries nothing we use
wire unused_tha = ^s_arp_tha;

// ---------------------------------------------------------------------------
// Cache lookups: the ARP sender and the resolve request (IPs are unique in
// the cache, so the matches are OR-ed together)

reg [CACHE_SIZE-1:0] arp_match;
reg [CACHE_SIZE-1:0] resolve_match;
reg [47:0]              resolve_cache_mac;
integer i;

always @* begin
    resolve_cache_mac = 48'd0;
    for (i = 0; i < CACHE_SIZE; i = i + 1) begin
        arp_match[i] = cache_valid_reg[i] && cache_ip_reg[32*i +: 32] == s_arp_spa;
        resolve_match[i] = cache_valid_reg[i] && cache_ip_reg[32*i +: 32] == s_resolve_ip;
        resolve_cache_mac = resolve_cache_mac | ({48{resolve_match[i]}} & cache_mac_reg[48*i +: 48]);
    end
end

wire arp_hit = |arp_match;
wire resolve_cache_hit = |resolve_match;

// ---------------------------------------------------------------------------
// Received ARP

wire arp_fire = s_arp_valid && s_arp_ready;
wire arp_is_req = s_arp_oper == OPER_REQUEST;
wire arp_learnable = (arp_is_req || s_arp_oper == OPER_REPLY) &&
                     s_arp_spa != 32'd0 && s_arp_spa != cfg_ip;
wire arp_for_us = s_arp_tpa == cfg_ip && cfg_ip != 32'd0;
wire arp_from_pending = resolve_pending_reg && s_arp_spa == resolve_ip_reg;

wire arp_update = arp_fire && arp_learnable && arp_hit;
wire arp_insert = arp_fire && arp_learnable && !arp_hit && (arp_from_pending || (arp_is_req && arp_for_us));
wire arp_learn = arp_update || arp_insert;
wire arp_answers_resolve = arp_fire && arp_learnable && arp_from_pending;
wire arp_reply = arp_fire && arp_is_req && arp_for_us;

// ---------------------------------------------------------------------------
// Resolve requests

wire resolve_fire = s_resolve_valid && s_resolve_ready;
wire resolve_bypass = arp_learn && s_arp_spa == s_resolve_ip;
wire resolve_hit = resolve_bypass || resolve_cache_hit;
wire [47:0] resolve_mac = resolve_bypass ? s_arp_sha : resolve_cache_mac;

wire retry_timer_expired = retry_timer_on_reg && retry_timer_reg == {TIMER_WIDTH{1'b0}};
wire requests_all_sent = requests_sent_reg == RETRIES;

// ---------------------------------------------------------------------------
// Frame engine

wire tx_fire = tx_valid_reg && m_axis_tready;
wire tx_take = !tx_valid_reg || (m_axis_tready && tx_last);
wire load_request = tx_take && request_queued_reg;
wire load_reply = tx_take && !request_queued_reg && reply_valid_reg;

// the next frame: our request if one is queued, else the reply
reg [8*FRAME_BYTES-1:0] frame_bytes;
reg [47:0] frame_dst_mac;
reg [47:0] frame_tha;
reg [31:0] frame_tpa;
reg [15:0] frame_oper;
integer j;

always @* begin
    if (request_queued_reg) begin
        frame_dst_mac = 48'hFFFFFFFFFFFF;
        frame_tha = 48'd0;
        frame_tpa = resolve_ip_reg;
        frame_oper = OPER_REQUEST;
    end else begin
        frame_dst_mac = reply_sha_reg;
        frame_tha = reply_sha_reg;
        frame_tpa = reply_spa_reg;
        frame_oper = OPER_REPLY;
    end

    // byte n in frame_bytes[8*n +: 8]; bytes 42..59 are the pad
    frame_bytes = {8*FRAME_BYTES{1'b0}};
    for (j = 0; j < 6; j = j + 1) begin
        frame_bytes[8*(0+j) +: 8] = frame_dst_mac[8*(5-j) +: 8];
        frame_bytes[8*(6+j) +: 8] = cfg_mac[8*(5-j) +: 8];
        frame_bytes[8*(22+j) +: 8] = cfg_mac[8*(5-j) +: 8];
        frame_bytes[8*(32+j) +: 8] = frame_tha[8*(5-j) +: 8];
    end
    frame_bytes[8*12 +: 8] = 8'h08;               // ethertype ARP
    frame_bytes[8*13 +: 8] = 8'h06;
    frame_bytes[8*14 +: 8] = 8'h00;               // htype Ethernet
    frame_bytes[8*15 +: 8] = 8'h01;
    frame_bytes[8*16 +: 8] = 8'h08;               // ptype IPv4
    frame_bytes[8*17 +: 8] = 8'h00;
    frame_bytes[8*18 +: 8] = 8'd6;                // hlen
    frame_bytes[8*19 +: 8] = 8'd4;                // plen
    frame_bytes[8*20 +: 8] = frame_oper[15:8];
    frame_bytes[8*21 +: 8] = frame_oper[7:0];
    for (j = 0; j < 4; j = j + 1) begin
        frame_bytes[8*(28+j) +: 8] = cfg_ip[8*(3-j) +: 8];
        frame_bytes[8*(38+j) +: 8] = frame_tpa[8*(3-j) +: 8];
    end
end

// ---------------------------------------------------------------------------
// Registers

integer slot;

always @(posedge clk) begin
    // frame engine
    if (tx_fire) begin
        if (tx_last) begin
            tx_valid_reg <= 1'b0;
            if (tx_is_request_reg) begin
                arp_requests_out_reg <= arp_requests_out_reg + 1'b1;
            end else begin
                arp_replies_out_reg <= arp_replies_out_reg + 1'b1;
            end
        end else begin
            // (with one beat per frame the data is only ever loaded)
            tx_data_reg <= tx_data_reg >> DATA_WIDTH;
            tx_beat_reg <= tx_beat_reg + 1'b1;
        end
    end
    if (load_request || load_reply) begin
        tx_valid_reg <= 1'b1;
        tx_is_request_reg <= load_request;
        tx_beat_reg <= {BEAT_WIDTH{1'b0}};
        tx_data_reg <= {{(FRAME_WIDTH-8*FRAME_BYTES){1'b0}}, frame_bytes};
    end
    if (load_reply) begin
        reply_valid_reg <= 1'b0;
    end

    // reply slot (only filled when empty: s_arp_ready)
    if (arp_reply) begin
        reply_valid_reg <= 1'b1;
        reply_sha_reg <= s_arp_sha;
        reply_spa_reg <= s_arp_spa;
    end

    // cache: the MAC of the matching entry, or the whole entry the round-robin
    // pointer is at (a decoder per entry, no shifters)
    for (slot = 0; slot < CACHE_SIZE; slot = slot + 1) begin
        if ((arp_update && arp_match[slot]) || (arp_insert && cache_rr_reg == slot[SLOT_WIDTH-1:0])) begin
            cache_mac_reg[48*slot +: 48] <= s_arp_sha;
        end
        if (arp_insert && cache_rr_reg == slot[SLOT_WIDTH-1:0]) begin
            cache_valid_reg[slot] <= 1'b1;
            cache_ip_reg[32*slot +: 32] <= s_arp_spa;
        end
    end
    if (arp_insert) begin
        cache_rr_reg <= cache_rr_reg == LAST_SLOT ? {SLOT_WIDTH{1'b0}} : cache_rr_reg + 1'b1;
    end

    // resolve answer
    if (m_resolve_valid_reg && m_resolve_ready) begin
        m_resolve_valid_reg <= 1'b0;
        if (m_resolve_ok_reg) begin
            resolve_ok_reg <= resolve_ok_reg + 1'b1;
        end else begin
            resolve_fail_reg <= resolve_fail_reg + 1'b1;
        end
    end

    // the resolve in progress: request loaded, first beat out, timer
    if (load_request) begin
        request_queued_reg <= 1'b0;
        requests_sent_reg <= requests_sent_reg + 1'b1;
    end
    if (tx_fire && tx_beat_reg == {BEAT_WIDTH{1'b0}} && tx_is_request_reg && retry_timer_arm_reg) begin
        retry_timer_arm_reg <= 1'b0;
        retry_timer_on_reg <= 1'b1;
        retry_timer_reg <= requests_all_sent ? FAIL_WAIT : RETRY_WAIT;
    end
    if (load_request) begin
        retry_timer_arm_reg <= 1'b1;
    end
    if (retry_timer_on_reg) begin
        retry_timer_reg <= retry_timer_reg - 1'b1;
        if (retry_timer_expired) begin
            retry_timer_on_reg <= 1'b0;
            if (requests_all_sent) begin
                resolve_pending_reg <= 1'b0;
                m_resolve_valid_reg <= 1'b1;
                m_resolve_ip_reg <= resolve_ip_reg;
                m_resolve_mac_reg <= 48'd0;
                m_resolve_ok_reg <= 1'b0;
            end else begin
                request_queued_reg <= 1'b1;
            end
        end
    end

    // answered by a received ARP (wins over a time-out in the same cycle)
    if (arp_answers_resolve) begin
        resolve_pending_reg <= 1'b0;
        request_queued_reg <= 1'b0;
        retry_timer_arm_reg <= 1'b0;
        retry_timer_on_reg <= 1'b0;
        m_resolve_valid_reg <= 1'b1;
        m_resolve_ip_reg <= resolve_ip_reg;
        m_resolve_mac_reg <= s_arp_sha;
        m_resolve_ok_reg <= 1'b1;
    end

    // a new resolve (only while none is pending and the answer slot is free)
    if (resolve_fire) begin
        if (resolve_hit) begin
            m_resolve_valid_reg <= 1'b1;
            m_resolve_ip_reg <= s_resolve_ip;
            m_resolve_mac_reg <= resolve_mac;
            m_resolve_ok_reg <= 1'b1;
        end else begin
            resolve_pending_reg <= 1'b1;
            resolve_ip_reg <= s_resolve_ip;
            request_queued_reg <= 1'b1;
            retry_timer_arm_reg <= 1'b0;
            retry_timer_on_reg <= 1'b0;
            requests_sent_reg <= {SENT_WIDTH{1'b0}};
        end
    end

    // counters
    if (arp_fire && arp_is_req) begin
        arp_requests_in_reg <= arp_requests_in_reg + 1'b1;
    end

    if (rst) begin
        cache_valid_reg <= {CACHE_SIZE{1'b0}};
        cache_rr_reg <= {SLOT_WIDTH{1'b0}};
        resolve_pending_reg <= 1'b0;
        request_queued_reg <= 1'b0;
        retry_timer_arm_reg <= 1'b0;
        retry_timer_on_reg <= 1'b0;
        reply_valid_reg <= 1'b0;
        tx_valid_reg <= 1'b0;
        tx_beat_reg <= {BEAT_WIDTH{1'b0}};
        m_resolve_valid_reg <= 1'b0;
        arp_requests_in_reg <= 32'd0;
        arp_replies_out_reg <= 32'd0;
        arp_requests_out_reg <= 32'd0;
        resolve_ok_reg <= 32'd0;
        resolve_fail_reg <= 32'd0;
    end
end

endmodule

`default_nettype wire
`resetall
