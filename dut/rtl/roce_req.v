/*
 * roce_req: the RC requester of N_QP queue pairs.
 *
 * Work requests in (s_wr_*), one TX descriptor per packet out (m_desc_*, the
 * s_desc_* fields of roce_tx_frame) with, for each packet that has a payload,
 * a memory read request (m_rd_*) issued in the same order; ACK / NAK / RNR NAK
 * descriptors in (s_ack_*, from roce_rx_parse); completions out (m_cpl_*).
 * The payload is never stored here: every (re)transmission re-reads memory.
 *
 * Work queue: WQ_DEPTH entries per QP, a ring with three pointers:
 *   head_ptr  oldest WR not yet completed      (moved by the completion
 *             walker)
 *   send_ptr  the WR holding the next PSN to send (moved by the sender, set
 *             back by a go-back)
 *   tail_ptr  next free entry                  (moved by posting)
 * A WR gets its PSNs when it is posted: first_psn = the QP's next PSN,
 * npkts = max(1, ceil(length / PMTU)) with the QP's PMTU at that moment (kept
 * in the entry, so a later PMTU change affects only later WRs). Lengths up to
 * 2^31 bytes (IBA's maximum message) are supported.
 *
 * Per-QP PSN state: unacked_psn (oldest unacknowledged), send_psn (next to
 * send), sent_end_psn (one past the highest ever sent). The segment a PSN
 * stands for is computed from (send_psn - first_psn) of its WR, so going back
 * to any PSN is just setting send_psn (and send_ptr to the oldest WR; the
 * sender skips WRs that lie wholly before send_psn, one per cycle, without
 * sending).
 *
 * The logic is in sections, each an always @* computing the *_next values of
 * the registers it owns and a small clocked block (verilog-ethernet style):
 *   per-QP view       QP state, the WRs at the head and send pointers
 *   ACK decode        the ACK input register decoded (wires)
 *   ACK timer expiry  which local ACK timers ran out this cycle (and what
 *                     that does)
 *   completion walker head_ptr, the completion output register
 *   sender            send_ptr, send_psn, sent_end_psn, the descriptor and
 *                     memory read output registers
 *   timers            the 4.096 us / 10 us ticks, the local ACK timers, the
 *                     RNR waits
 *   ACK state         unacked_psn, the retry counters, the go-back mark
 *   QP status         active / failed, the completion status after a failure,
 *                     qp_error, the timeout counter
 *   WR posting        the WR input register, tail_ptr, the WQ memories
 * Each register is written by one section only; a section that reacts to an
 * event of another reads that event's wires (never another section's
 * *_next), and where several events hit one register in a cycle the later
 * one in the section's code wins.
 *
 * Sending: round robin over the QPs that are in RTS (qp_state 3), active,
 * not failed, not waiting out an RNR NAK, have a WR at send_ptr, and have
 * fewer than WINDOW PSNs outstanding (send_psn - unacked_psn). One packet
 * every other cycle, in three pipeline stages: the round robin pick; the PSN
 * and the packet's place in its WR, the WR read (the work queue's registered
 * read port); the payload's offset and length into the output registers.
 * Opcodes First/Middle/Last/Only
 * at the PMTU (256 << pmtu_code, codes above 4 taken as 4); RETH on WRITE
 * First/Only (va = remote_va, rkey, DMA length = the WR's length); ImmDt on
 * the last packet of *_IMM. AckReq on every Last/Only, on every PSN whose low
 * six bits are all ones (at least every 64 packets), and on the packet that
 * fills the window. ip_id counts packets (all QPs); tos 0; solicited 0;
 * udp_sport = 0xC000 | QPN[13:0].
 *
 * ACKs (one per cycle, s_ack_ready is always high after reset): for a QP of
 * ours that is active, in RTS and not failed; the PSN must be one sent and
 * not yet acknowledged (unacked_psn <= psn < sent_end_psn), else the
 * descriptor is ignored (stale / duplicate ACKs and NAKs; the counters still
 * count NAKs).
 *   ACK psn p             unacked_psn = p + 1 (coalesced, cumulative)
 *   NAK seq error p       unacked_psn = p; then, unless already gone back
 *                         with no progress since (or waiting out an RNR NAK),
 *                         one retry is counted and send_psn = p (go-back-N)
 *   RNR NAK p, code t     unacked_psn = p; one RNR retry counted (rnr_retry
 *                         7 = unlimited); send_psn = p; no sending on the QP
 *                         until the RNR timer of code t has run out
 *   NAK 1/2/3 (others     unacked_psn = p; the WR holding p completes with
 *   taken as 1)           status 3/4/5, every later WR with 6 (flushed);
 *                         qp_error
 * Progress (unacked_psn moving forward) reloads retry_cnt and rnr_retry,
 * clears the "gone back" mark and restarts the ACK timer (or stops it with
 * nothing outstanding). An acknowledgment that overtakes a go-back moves
 * send_psn up to unacked_psn: an acknowledged PSN is never resent.
 *
 * Local ACK timer (cfg_timeout t != 0): restarted by every packet sent and by
 * progress; on expiry (with something outstanding) one retry is counted and
 * send_psn = unacked_psn. A retry with none left (retry_cnt counts retries:
 * 0 = none) completes the WR holding unacked_psn with status 1 (2 for RNR),
 * flushes the rest and pulses qp_error.
 *
 * Timers count real time at CLK_FREQ_HZ: a free-running 4.096 us tick of
 * T4 = ceil(4.096e-6 * CLK_FREQ_HZ) cycles (1320 at 322.266 MHz: 4.0960 us)
 * and a 10 us tick of T10 = ceil(1e-5 * CLK_FREQ_HZ) cycles (3223: 10.0011 us).
 * A timer of N ticks is loaded with N + 1 (the first tick comes at any phase),
 * so it runs out after at least N whole ticks: never before the spec time,
 * at most one tick (plus the rounding up of the tick) late. The ACK timeout is
 * 2^t ticks of 4.096 us; the RNR wait is the wire-facts.md table in 10 us
 * ticks (code 0: 655.36 ms = 65536 ticks).
 *
 * Completions: in WR order per QP, round robin over the QPs, one every other
 * cycle. Status 0 success
 * (the WR's last PSN is acknowledged), 1 retry exceeded, 2 RNR retry exceeded,
 * 3 remote invalid request, 4 remote access error, 5 remote operational error,
 * 6 flushed (after an error, or posted to / left in a QP that is not in RTS).
 *
 * QP life: a QP becomes active when qp_state is RTS and its queue is empty
 * (its PSNs start at qp_loc_psn, retry counters loaded, failure cleared); it
 * stays so until qp_state leaves RTS. WRs posted to a QP that is not active
 * or has failed are completed as flushed. After a fatal error the QP sends
 * nothing until it leaves RTS (roce_cm puts it into ERROR on the qp_error
 * pulse) and is brought back to RTS.
 *
 * Limits: s_wr_qp must be < N_QP (other WRs are dropped); one WR queue entry
 * waits in the input register while its QP's queue is full, holding up WRs
 * for other QPs. WINDOW must be 1 .. 2^22.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_req #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    // Queue pairs; QP i has QPN QPN_BASE + i
    parameter N_QP = 4,
    // Work requests queued per QP (a power of 2)
    parameter WQ_DEPTH = 16,
    // Most PSNs outstanding (sent, not acknowledged) per QP
    parameter WINDOW = 1024,
    parameter QPN_BASE = 256,
    // Clock frequency: the timers count real time from it
    parameter CLK_FREQ_HZ = 322266000
)
(
    input  wire                       clk,
    input  wire                       rst,

    /*
     * Configuration
     */
    input  wire [47:0]                cfg_mac,
    input  wire [31:0]                cfg_ip,

    /*
     * Per-QP state (roce_cm outputs) and per-QP requester configuration
     */
    input  wire [3*N_QP-1:0]          qp_state,
    input  wire [24*N_QP-1:0]         qp_rem_qpn,
    input  wire [32*N_QP-1:0]         qp_rem_ip,
    input  wire [48*N_QP-1:0]         qp_rem_mac,
    input  wire [24*N_QP-1:0]         qp_loc_psn,
    input  wire [3*N_QP-1:0]          qp_pmtu_code,
    input  wire [5*N_QP-1:0]          cfg_timeout,
    input  wire [3*N_QP-1:0]          cfg_retry_cnt,
    input  wire [3*N_QP-1:0]          cfg_rnr_retry,

    /*
     * Work requests
     */
    input  wire                       s_wr_valid,
    output wire                       s_wr_ready,
    input  wire [$clog2(N_QP)-1:0]    s_wr_qp,
    input  wire [1:0]                 s_wr_opcode,     // 0 SEND, 1 SEND_IMM, 2 WRITE, 3 WRITE_IMM
    input  wire [63:0]                s_wr_local_addr,
    input  wire [31:0]                s_wr_length,
    input  wire [63:0]                s_wr_remote_va,
    input  wire [31:0]                s_wr_rkey,
    input  wire [31:0]                s_wr_imm,
    input  wire [63:0]                s_wr_wr_id,

    /*
     * ACK / NAK / RNR NAK descriptors from the RX parser
     */
    input  wire                       s_ack_valid,
    output wire                       s_ack_ready,
    input  wire [23:0]                s_ack_dest_qp,
    input  wire [23:0]                s_ack_psn,
    input  wire [7:0]                 s_ack_syndrome,
    input  wire [23:0]                s_ack_msn,

    /*
     * TX descriptors (roce_tx_frame s_desc_*)
     */
    output wire                       m_desc_valid,
    input  wire                       m_desc_ready,
    output wire [47:0]                m_desc_dst_mac,
    output wire [47:0]                m_desc_src_mac,
    output wire [31:0]                m_desc_src_ip,
    output wire [31:0]                m_desc_dst_ip,
    output wire [15:0]                m_desc_ip_id,
    output wire [7:0]                 m_desc_tos,
    output wire [15:0]                m_desc_udp_sport,
    output wire [7:0]                 m_desc_opcode,
    output wire                       m_desc_solicited,
    output wire                       m_desc_ack_req,
    output wire [23:0]                m_desc_dest_qp,
    output wire [23:0]                m_desc_psn,
    output wire [63:0]                m_desc_reth_va,
    output wire [31:0]                m_desc_reth_rkey,
    output wire [31:0]                m_desc_reth_len,
    output wire [31:0]                m_desc_imm,
    output wire [12:0]                m_desc_payload_len,

    /*
     * Memory read requests (one per descriptor with payload, same order)
     */
    output wire                       m_rd_valid,
    input  wire                       m_rd_ready,
    output wire [63:0]                m_rd_addr,
    output wire [12:0]                m_rd_len,

    /*
     * Completions
     */
    output wire                       m_cpl_valid,
    input  wire                       m_cpl_ready,
    output wire [$clog2(N_QP)-1:0]    m_cpl_qp,
    output wire [63:0]                m_cpl_wr_id,
    output wire [2:0]                 m_cpl_status,

    /*
     * Status
     */
    output wire [N_QP-1:0]            qp_error,
    output wire [31:0]                stat_pkts_sent,
    output wire [31:0]                stat_retransmissions,
    output wire [31:0]                stat_timeouts,
    output wire [31:0]                stat_naks,
    output wire [31:0]                stat_rnr_naks
);

// ---------------------------------------------------------------------------
// Constants

localparam QPW = $clog2(N_QP);              // QP index bits
localparam PTRW = $clog2(WQ_DEPTH);         // WQ entry index bits (a pointer has one more, the wrap bit)
localparam WQ_AW = QPW + PTRW;              // WQ memory address: {QP, entry}
localparam WQ_ENTRIES = 1 << WQ_AW;

// WQ entry, the WR as posted (read by the sender):
// {opcode[1:0], local_addr[63:0], length[31:0], remote_va[63:0], rkey[31:0], imm[31:0]}
localparam WR_WIDTH = 2 + 64 + 32 + 64 + 32 + 32;
// ... its segmentation (read by the sender and the walker):
// {flush, pmtu_code[2:0], first_psn[23:0], npkts[23:0]}
localparam SEG_WIDTH = 1 + 3 + 24 + 24;

localparam [2:0] ST_RTS = 3'd3;

localparam [2:0] WC_SUCCESS = 3'd0;
localparam [2:0] WC_RETRY_EXC = 3'd1;
localparam [2:0] WC_RNR_EXC = 3'd2;
localparam [2:0] WC_REM_INV = 3'd3;
localparam [2:0] WC_REM_ACC = 3'd4;
localparam [2:0] WC_REM_OP = 3'd5;
localparam [2:0] WC_FLUSHED = 3'd6;

localparam [23:0] QPN_BASE_24 = QPN_BASE[23:0];
localparam [23:0] N_QP_24 = N_QP[23:0];
localparam [23:0] WINDOW_24 = WINDOW[23:0];
localparam [23:0] WINDOW_M1 = WINDOW_24 - 24'd1;
localparam [PTRW:0] WQ_DEPTH_PTR = WQ_DEPTH[PTRW:0];

// timer ticks in cycles, rounded up
localparam [63:0] TICK_4US_CYCLES = (64'd4096 * CLK_FREQ_HZ + 64'd999999999) / 64'd1000000000;
localparam [63:0] TICK_10US_CYCLES = (64'd10 * CLK_FREQ_HZ + 64'd999999) / 64'd1000000;
localparam [31:0] TICK_4US_LAST = TICK_4US_CYCLES[31:0] - 32'd1;
localparam [31:0] TICK_10US_LAST = TICK_10US_CYCLES[31:0] - 32'd1;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if (N_QP < 2) begin
        $error("Error: N_QP must be at least 2 (instance %m)");
        $finish;
    end
    if (QPN_BASE < 0 || QPN_BASE + N_QP > 32'h1000000) begin
        $error("Error: QPN_BASE .. QPN_BASE + N_QP - 1 must be 24-bit QPNs (instance %m)");
        $finish;
    end
    if (WQ_DEPTH < 2 || (1 << PTRW) != WQ_DEPTH) begin
        $error("Error: WQ_DEPTH must be a power of 2, at least 2 (instance %m)");
        $finish;
    end
    if (WINDOW < 1 || WINDOW > (1 << 22)) begin
        $error("Error: WINDOW must be 1 .. 2^22 (instance %m)");
        $finish;
    end
    if (CLK_FREQ_HZ < 1000000) begin
        $error("Error: CLK_FREQ_HZ must be at least 1 MHz (instance %m)");
        $finish;
    end
end

// a - b < 0 in 24-bit PSN arithmetic
function psn_lt(input [23:0] a, input [23:0] b);
    reg [23:0] diff;
    begin
        diff = a - b;
        psn_lt = |(diff & 24'h800000);
    end
endfunction

// lo <= p < hi in 24-bit PSN arithmetic
function psn_in(input [23:0] p, input [23:0] lo, input [23:0] hi);
    begin
        psn_in = (p - lo) < (hi - lo);
    end
endfunction

// RNR NAK timer in 10 us ticks (wire-facts.md table)
function [16:0] rnr_ticks(input [4:0] code);
    begin
        case (code)
            5'd0:  rnr_ticks = 17'd65536;
            5'd1:  rnr_ticks = 17'd1;
            5'd2:  rnr_ticks = 17'd2;
            5'd3:  rnr_ticks = 17'd3;
            5'd4:  rnr_ticks = 17'd4;
            5'd5:  rnr_ticks = 17'd6;
            5'd6:  rnr_ticks = 17'd8;
            5'd7:  rnr_ticks = 17'd12;
            5'd8:  rnr_ticks = 17'd16;
            5'd9:  rnr_ticks = 17'd24;
            5'd10: rnr_ticks = 17'd32;
            5'd11: rnr_ticks = 17'd48;
            5'd12: rnr_ticks = 17'd64;
            5'd13: rnr_ticks = 17'd96;
            5'd14: rnr_ticks = 17'd128;
            5'd15: rnr_ticks = 17'd192;
            5'd16: rnr_ticks = 17'd256;
            5'd17: rnr_ticks = 17'd384;
            5'd18: rnr_ticks = 17'd512;
            5'd19: rnr_ticks = 17'd768;
            5'd20: rnr_ticks = 17'd1024;
            5'd21: rnr_ticks = 17'd1536;
            5'd22: rnr_ticks = 17'd2048;
            5'd23: rnr_ticks = 17'd3072;
            5'd24: rnr_ticks = 17'd4096;
            5'd25: rnr_ticks = 17'd6144;
            5'd26: rnr_ticks = 17'd8192;
            5'd27: rnr_ticks = 17'd12288;
            5'd28: rnr_ticks = 17'd16384;
            5'd29: rnr_ticks = 17'd24576;
            5'd30: rnr_ticks = 17'd32768;
            default: rnr_ticks = 17'd49152;
        endcase
    end
endfunction

function [2:0] pmtu_clamp(input [2:0] code);
    begin
        pmtu_clamp = (code > 3'd4) ? 3'd4 : code;
    end
endfunction

// the RC request opcode of a packet of a WR (opcode 0 SEND, 1 SEND_IMM,
// 2 WRITE, 3 WRITE_IMM) by its place in the WR
function [7:0] request_opcode(input [1:0] wr_opcode, input first, input last);
    begin
        if (wr_opcode[1]) begin
            // RDMA WRITE
            if (first && last) begin
                request_opcode = wr_opcode[0] ? 8'h0B : 8'h0A;
            end else if (first) begin
                request_opcode = 8'h06;
            end else if (last) begin
                request_opcode = wr_opcode[0] ? 8'h09 : 8'h08;
            end else begin
                request_opcode = 8'h07;
            end
        end else begin
            // SEND
            if (first && last) begin
                request_opcode = wr_opcode[0] ? 8'h05 : 8'h04;
            end else if (first) begin
                request_opcode = 8'h00;
            end else if (last) begin
                request_opcode = wr_opcode[0] ? 8'h03 : 8'h02;
            end else begin
                request_opcode = 8'h01;
            end
        end
    end
endfunction

// ---------------------------------------------------------------------------
// Storage: the work queues (no reset; written by WR posting)

reg [WR_WIDTH-1:0]  wq_wr_mem [0:WQ_ENTRIES-1];
reg [SEG_WIDTH-1:0] wq_seg_mem [0:WQ_ENTRIES-1];
reg [63:0]          wq_wr_id_mem [0:WQ_ENTRIES-1];

// ---------------------------------------------------------------------------
// Registers, with their next values. Per QP: the wider values in arrays
// indexed by QP (mem2reg: registers, not RAM), the narrow ones in vectors with
// QP i in bits [W*i +: W].

// WQ pointers (see the top)
reg [(PTRW+1)*N_QP-1:0] head_ptr_reg = {(PTRW+1)*N_QP{1'b0}}, head_ptr_next;
reg [(PTRW+1)*N_QP-1:0] send_ptr_reg = {(PTRW+1)*N_QP{1'b0}}, send_ptr_next;
reg [(PTRW+1)*N_QP-1:0] tail_ptr_reg = {(PTRW+1)*N_QP{1'b0}}, tail_ptr_next;

// PSNs: the first of the next WR posted, the oldest unacknowledged, the next
// to send, one past the highest ever sent
(* mem2reg *) reg [23:0] post_psn_reg [0:N_QP-1];
(* mem2reg *) reg [23:0] post_psn_next [0:N_QP-1];
(* mem2reg *) reg [23:0] unacked_psn_reg [0:N_QP-1];
(* mem2reg *) reg [23:0] unacked_psn_next [0:N_QP-1];
(* mem2reg *) reg [23:0] send_psn_reg [0:N_QP-1];
(* mem2reg *) reg [23:0] send_psn_next [0:N_QP-1];
(* mem2reg *) reg [23:0] sent_end_psn_reg [0:N_QP-1];
(* mem2reg *) reg [23:0] sent_end_psn_next [0:N_QP-1];

// QP status: active (initialised in RTS), failed (fatal error), and the
// status the WRs complete with after a failure
reg [N_QP-1:0]    qp_active_reg = {N_QP{1'b0}}, qp_active_next;
reg [N_QP-1:0]    qp_failed_reg = {N_QP{1'b0}}, qp_failed_next;
reg [3*N_QP-1:0]  fail_status_reg = {3*N_QP{1'b0}}, fail_status_next;

// ACK state: retries left, and "gone back (NAK) with no progress since"
reg [3*N_QP-1:0]  retry_left_reg = {3*N_QP{1'b0}}, retry_left_next;
reg [3*N_QP-1:0]  rnr_retry_left_reg = {3*N_QP{1'b0}}, rnr_retry_left_next;
reg [N_QP-1:0]    went_back_reg = {N_QP{1'b0}}, went_back_next;

// timers: the local ACK timer (in 4.096 us ticks) and the RNR wait (10 us)
reg [N_QP-1:0]    ack_timer_on_reg = {N_QP{1'b0}}, ack_timer_on_next;
(* mem2reg *) reg [31:0] ack_timer_reg [0:N_QP-1];
(* mem2reg *) reg [31:0] ack_timer_next [0:N_QP-1];
reg [N_QP-1:0]    rnr_wait_reg = {N_QP{1'b0}}, rnr_wait_next;
(* mem2reg *) reg [16:0] rnr_timer_reg [0:N_QP-1];
(* mem2reg *) reg [16:0] rnr_timer_next [0:N_QP-1];

reg [31:0]        prescale_4us_reg = 32'd0, prescale_4us_next;
reg [31:0]        prescale_10us_reg = 32'd0, prescale_10us_next;
reg               tick_4us_reg = 1'b0, tick_4us_next;
reg               tick_10us_reg = 1'b0, tick_10us_next;

// round robin: the QP served last
reg [QPW-1:0]     send_rr_reg = {QPW{1'b0}}, send_rr_next;
reg [QPW-1:0]     cpl_rr_reg = {QPW{1'b0}}, cpl_rr_next;

// WR input register
reg               wr_valid_reg = 1'b0, wr_valid_next;
reg [QPW-1:0]     wr_qp_reg = {QPW{1'b0}};
reg [1:0]         wr_opcode_reg = 2'd0;
reg [63:0]        wr_local_addr_reg = 64'd0;
reg [31:0]        wr_length_reg = 32'd0;
reg [63:0]        wr_remote_va_reg = 64'd0;
reg [31:0]        wr_rkey_reg = 32'd0;
reg [31:0]        wr_imm_reg = 32'd0;
reg [63:0]        wr_wr_id_reg = 64'd0;

// ACK input register
reg               ack_ready_reg = 1'b0;
reg               ack_valid_reg = 1'b0;
reg [23:0]        ack_dest_qp_reg = 24'd0;
reg [23:0]        ack_psn_reg = 24'd0;
reg [7:0]         ack_syndrome_reg = 8'd0;

// the sender's stage 2 holds a packet (see the sender)
reg               s2_valid_reg = 1'b0, s2_valid_next;

// output registers
reg               m_desc_valid_reg = 1'b0, m_desc_valid_next;
reg [47:0]        m_desc_dst_mac_reg = 48'd0;
reg [31:0]        m_desc_dst_ip_reg = 32'd0;
reg [15:0]        m_desc_ip_id_reg = 16'd0;
reg [15:0]        m_desc_udp_sport_reg = 16'd0;
reg [7:0]         m_desc_opcode_reg = 8'd0;
reg               m_desc_ack_req_reg = 1'b0;
reg [23:0]        m_desc_dest_qp_reg = 24'd0;
reg [23:0]        m_desc_psn_reg = 24'd0;
reg [63:0]        m_desc_reth_va_reg = 64'd0;
reg [31:0]        m_desc_reth_rkey_reg = 32'd0;
reg [31:0]        m_desc_reth_len_reg = 32'd0;
reg [31:0]        m_desc_imm_reg = 32'd0;
reg [12:0]        m_desc_payload_len_reg = 13'd0;
reg [15:0]        ip_id_reg = 16'd0, ip_id_next;

reg               m_rd_valid_reg = 1'b0, m_rd_valid_next;
reg [63:0]        m_rd_addr_reg = 64'd0;
reg [12:0]        m_rd_len_reg = 13'd0;

reg               m_cpl_valid_reg = 1'b0, m_cpl_valid_next;
reg [QPW-1:0]     m_cpl_qp_reg = {QPW{1'b0}};
reg [63:0]        m_cpl_wr_id_reg = 64'd0;
reg [2:0]         m_cpl_status_reg = 3'd0;

reg [N_QP-1:0]    qp_error_reg = {N_QP{1'b0}}, qp_error_next;
reg [31:0]        stat_pkts_sent_reg = 32'd0, stat_pkts_sent_next;
reg [31:0]        stat_retransmissions_reg = 32'd0, stat_retransmissions_next;
reg [31:0]        stat_timeouts_reg = 32'd0, stat_timeouts_next;
reg [31:0]        stat_naks_reg = 32'd0, stat_naks_next;
reg [31:0]        stat_rnr_naks_reg = 32'd0, stat_rnr_naks_next;

// per-QP values in the loops below (one QP's slice of a register's next value)
reg [23:0]     this_send_psn, this_sent_end_psn, this_unacked_psn, this_post_psn;
reg [PTRW:0]   this_send_ptr, this_tail_ptr;
reg            this_ack_timer_on, this_rnr_wait, this_went_back, this_qp_active, this_qp_failed;
reg [31:0]     this_ack_timer;
reg [16:0]     this_rnr_timer;
reg [2:0]      this_retry_left, this_rnr_retry_left, this_fail_status;

// the arrays' initial values (as the vectors' initialisers)
initial begin
    for (q_init = 0; q_init < N_QP; q_init = q_init + 1) begin
        post_psn_reg[q_init] = 24'd0;
        unacked_psn_reg[q_init] = 24'd0;
        send_psn_reg[q_init] = 24'd0;
        sent_end_psn_reg[q_init] = 24'd0;
        ack_timer_reg[q_init] = 32'd0;
        rnr_timer_reg[q_init] = 17'd0;
    end
end

// loop indices, one per always block
integer q_init, q_post_ff, q_state_ff, q_send_ff, q_tmr_ff;
integer q_view, q_ack, q_exp, q_cpl, k_cpl, n_cpl, q_sel, k_sel, n_sel, q_send;
integer q_tmr, q_state, q_stat, q_post;

// ---------------------------------------------------------------------------
// Per-QP view: QP state, and the segmentation of the WRs at the head and
// send pointers

reg [N_QP-1:0]      qp_rts;             // qp_state is RTS
reg [N_QP-1:0]      qp_init;            // becomes active this cycle: RTS, inactive, queue empty
reg [N_QP-1:0]      wq_full;
reg [N_QP-1:0]      wq_has_head;        // a WR not yet completed (head_ptr != tail_ptr)
reg [N_QP-1:0]      wq_has_send;        // a WR at send_ptr (send_ptr != tail_ptr)
reg [N_QP-1:0]      head_flush;         // the WR at head_ptr: to be flushed,
(* mem2reg *) reg [23:0] head_first_psn [0:N_QP-1];     // ... its first PSN
(* mem2reg *) reg [23:0] head_npkts [0:N_QP-1];         // ... and packets
(* mem2reg *) reg [23:0] send_wr_first_psn [0:N_QP-1];  // the WR at send_ptr: its first PSN
(* mem2reg *) reg [23:0] send_wr_npkts [0:N_QP-1];      // ... and packets
(* mem2reg *) reg [2:0]  send_wr_pmtu [0:N_QP-1];       // ... and PMTU code

reg [QPW-1:0]       view_qp;
reg [PTRW:0]        view_head_ptr, view_send_ptr, view_tail_ptr;
reg [SEG_WIDTH-1:0] view_head_seg, view_send_seg;

always @* begin
    for (q_view = 0; q_view < N_QP; q_view = q_view + 1) begin
        view_qp = q_view[QPW-1:0];
        view_head_ptr = head_ptr_reg[(PTRW+1)*q_view +: PTRW+1];
        view_send_ptr = send_ptr_reg[(PTRW+1)*q_view +: PTRW+1];
        view_tail_ptr = tail_ptr_reg[(PTRW+1)*q_view +: PTRW+1];
        view_head_seg = wq_seg_mem[{view_qp, view_head_ptr[PTRW-1:0]}];
        view_send_seg = wq_seg_mem[{view_qp, view_send_ptr[PTRW-1:0]}];

        qp_rts[q_view] = qp_state[3*q_view +: 3] == ST_RTS;
        qp_init[q_view] = qp_rts[q_view] && !qp_active_reg[q_view] && view_head_ptr == view_tail_ptr;
        wq_full[q_view] = (view_tail_ptr - view_head_ptr) == WQ_DEPTH_PTR;
        wq_has_head[q_view] = view_head_ptr != view_tail_ptr;
        wq_has_send[q_view] = view_send_ptr != view_tail_ptr;

        head_flush[q_view] = view_head_seg[51];
        head_first_psn[q_view] = view_head_seg[47:24];
        head_npkts[q_view] = view_head_seg[23:0];
        send_wr_first_psn[q_view] = view_send_seg[47:24];
        send_wr_npkts[q_view] = view_send_seg[23:0];
        send_wr_pmtu[q_view] = view_send_seg[50:48];
    end
end

// ---------------------------------------------------------------------------
// ACK decode: the descriptor in the ACK input register

wire [23:0]   ack_qp_offset = ack_dest_qp_reg - QPN_BASE_24;
wire          ack_for_us = ack_qp_offset < N_QP_24;      // one of our QPNs
wire [QPW-1:0] ack_qp = ack_qp_offset[QPW-1:0];
wire          ack_qp_ok = ack_valid_reg && ack_for_us && qp_active_reg[ack_qp] && !qp_failed_reg[ack_qp] &&
                          qp_rts[ack_qp];
wire [23:0]   ack_qp_unacked_psn = unacked_psn_reg[ack_qp];
wire [23:0]   ack_qp_send_psn = send_psn_reg[ack_qp];
wire [23:0]   ack_qp_sent_end_psn = sent_end_psn_reg[ack_qp];
// AETH syndrome: {0, type[1:0], value[4:0]}
wire [1:0]    ack_type = ack_syndrome_reg[6:5];
wire [4:0]    ack_value = ack_syndrome_reg[4:0];
wire          ack_is_ack = ack_type == 2'b00;
wire          ack_is_rnr_nak = ack_type == 2'b01;
wire          ack_is_nak = ack_type == 2'b11;
// the PSN was sent and is not yet acknowledged
wire          ack_psn_outstanding = (ack_psn_reg - ack_qp_unacked_psn) < (ack_qp_sent_end_psn - ack_qp_unacked_psn);
wire          ack_accepted = ack_qp_ok && ack_psn_outstanding && !ack_syndrome_reg[7] && ack_type != 2'b10;
wire [23:0]   ack_new_unacked_psn = ack_is_ack ? ack_psn_reg + 24'd1 : ack_psn_reg;
// unacked_psn moves forward
wire          ack_progress = ack_accepted && ack_new_unacked_psn != ack_qp_unacked_psn;
// ... past send_psn (it overtakes a go-back)
wire          ack_passes_send_psn = ack_progress && ((ack_new_unacked_psn - ack_qp_unacked_psn) >
                                                    (ack_qp_send_psn - ack_qp_unacked_psn));
// PSNs still outstanding after it
wire          ack_outstanding_left = ack_new_unacked_psn != ack_qp_sent_end_psn;
wire [2:0]    ack_cfg_retry_cnt = cfg_retry_cnt[3*ack_qp +: 3];
wire [2:0]    ack_cfg_rnr_retry = cfg_rnr_retry[3*ack_qp +: 3];
// the retry counters and the go-back mark as this descriptor finds them
// (progress reloads / clears them first)
wire [2:0]    ack_retry_left = ack_progress ? ack_cfg_retry_cnt : retry_left_reg[3*ack_qp +: 3];
wire [2:0]    ack_rnr_retry_left = ack_progress ? ack_cfg_rnr_retry : rnr_retry_left_reg[3*ack_qp +: 3];
wire          ack_went_back = !ack_progress && (went_back_reg[ack_qp] || rnr_wait_reg[ack_qp]);
// a sequence error NAK that goes back, or fails the QP with no retry left
wire          ack_seq_nak = ack_accepted && ack_is_nak && ack_value == 5'd0 && !ack_went_back;
wire          ack_seq_nak_exhausted = ack_seq_nak && ack_retry_left == 3'd0;
// an RNR NAK, likewise
wire          ack_rnr_nak = ack_accepted && ack_is_rnr_nak;
wire          ack_rnr_nak_exhausted = ack_rnr_nak && ack_cfg_rnr_retry != 3'd7 && ack_rnr_retry_left == 3'd0;
// a fatal NAK (invalid request, remote access error, remote operational error)
wire          ack_fatal_nak = ack_accepted && ack_is_nak && ack_value != 5'd0;
wire [2:0]    ack_fatal_nak_status = (ack_value == 5'd2) ? WC_REM_ACC : ((ack_value == 5'd3) ? WC_REM_OP : WC_REM_INV);
// the QP fails, with this status
wire          ack_fail = ack_fatal_nak || ack_seq_nak_exhausted || ack_rnr_nak_exhausted;
wire [2:0]    ack_fail_status = ack_fatal_nak ? ack_fatal_nak_status :
                                (ack_seq_nak_exhausted ? WC_RETRY_EXC : WC_RNR_EXC);
// send_psn goes back to the NAK's PSN
wire          ack_go_back = (ack_seq_nak && !ack_seq_nak_exhausted) || (ack_rnr_nak && !ack_rnr_nak_exhausted);
// the ACK timer stops (RNR wait, failure)
wire          ack_timer_stop = ack_rnr_nak || ack_fail;

// the descriptor is for QP i (whether accepted or not)
reg [N_QP-1:0] ack_to_qp;

always @* begin
    for (q_ack = 0; q_ack < N_QP; q_ack = q_ack + 1) begin
        ack_to_qp[q_ack] = ack_valid_reg && ack_for_us && ack_qp == q_ack[QPW-1:0];
    end
end

// ---------------------------------------------------------------------------
// ACK timer expiry

reg [N_QP-1:0] ack_timer_expired;   // ran out (QP active, in RTS, not failed, not in an RNR wait, no ACK for it)
reg [N_QP-1:0] ack_timeout;         // ... with PSNs outstanding: a timeout
reg [N_QP-1:0] ack_timeout_retry;   // ... with a retry left: go back to unacked_psn
reg [N_QP-1:0] ack_timeout_fail;    // ... with none left: the QP fails
reg [31:0]     ack_timeouts;        // timeouts this cycle

always @* begin
    ack_timeouts = 32'd0;
    for (q_exp = 0; q_exp < N_QP; q_exp = q_exp + 1) begin
        ack_timer_expired[q_exp] = ack_timer_on_reg[q_exp] && ack_timer_reg[q_exp] == 32'd0 &&
                                   qp_active_reg[q_exp] && !qp_failed_reg[q_exp] && qp_rts[q_exp] &&
                                   !rnr_wait_reg[q_exp] && !ack_to_qp[q_exp];
        ack_timeout[q_exp] = ack_timer_expired[q_exp] &&
                             unacked_psn_reg[q_exp] != sent_end_psn_reg[q_exp];
        ack_timeout_retry[q_exp] = ack_timeout[q_exp] && retry_left_reg[3*q_exp +: 3] != 3'd0;
        ack_timeout_fail[q_exp] = ack_timeout[q_exp] && retry_left_reg[3*q_exp +: 3] == 3'd0;
        if (ack_timeout[q_exp]) begin
            ack_timeouts = ack_timeouts + 32'd1;
        end
    end
end

// ---------------------------------------------------------------------------
// Completion walker: the WR at head_ptr completes once its last PSN is
// acknowledged (success), or when it is to be flushed or the QP has failed or
// is not active; one completion every other cycle, round robin over the QPs

reg [N_QP-1:0]   cpl_ready;         // the WR at head_ptr can complete
reg [3*N_QP-1:0] cpl_status;        // ... with this status
reg              cpl_out_free;      // the completion output register can take one
reg              cpl_pick_go;       // the round robin picks a QP (to act on in the next cycle)
reg [QPW-1:0]    cpl_pick_qp;       // ... this one
reg              cpl_pick_valid_reg = 1'b0;
reg [QPW-1:0]    cpl_pick_qp_reg = {QPW{1'b0}};
reg              cpl_go;            // a completion goes into it
reg [QPW-1:0]    cpl_qp;            // ... of this QP
reg [N_QP-1:0]   cpl_take;          // the WR at head_ptr of QP i completes (one hot)
reg [PTRW:0]     cpl_head_ptr;      // head_ptr of cpl_qp
reg [63:0]       cpl_wr_id;         // ... and its WR's wr_id
reg [23:0]       cpl_last_psn;
reg              cpl_acked;

// which heads can complete (from registers only)
always @* begin
    for (q_cpl = 0; q_cpl < N_QP; q_cpl = q_cpl + 1) begin
        cpl_last_psn = head_first_psn[q_cpl] + head_npkts[q_cpl] - 24'd1;
        cpl_acked = !head_flush[q_cpl] && psn_lt(cpl_last_psn, unacked_psn_reg[q_cpl]);
        cpl_ready[q_cpl] = wq_has_head[q_cpl] &&
                           (cpl_acked || head_flush[q_cpl] || !qp_active_reg[q_cpl] || qp_failed_reg[q_cpl]);
        cpl_status[3*q_cpl +: 3] = cpl_acked ? WC_SUCCESS :
                                   (qp_failed_reg[q_cpl] ? fail_status_reg[3*q_cpl +: 3] : WC_FLUSHED);
    end
end

// round robin, and the next state
always @* begin
    cpl_out_free = !m_cpl_valid_reg || m_cpl_ready;
    // a pick every other cycle, acted on in the next (timing: the pick is
    // registered). The head picked can still complete then: only the walker
    // moves head_ptr, and unacked_psn, failure and leaving RTS only ever make
    // a head ready (the status is the one of the cycle it completes in).
    cpl_pick_go = 1'b0;
    cpl_pick_qp = cpl_rr_reg;
    for (k_cpl = N_QP; k_cpl >= 1; k_cpl = k_cpl - 1) begin
        n_cpl = {{(32-QPW){1'b0}}, cpl_rr_reg} + k_cpl;
        if (n_cpl >= N_QP) begin
            n_cpl = n_cpl - N_QP;
        end
        if (cpl_ready[n_cpl] && !cpl_pick_valid_reg) begin
            cpl_pick_go = 1'b1;
            cpl_pick_qp = n_cpl[QPW-1:0];
        end
    end
    cpl_qp = cpl_pick_qp_reg;
    cpl_go = cpl_pick_valid_reg && cpl_out_free;

    cpl_head_ptr = head_ptr_reg[(PTRW+1)*cpl_qp +: PTRW+1];
    cpl_wr_id = wq_wr_id_mem[{cpl_qp, cpl_head_ptr[PTRW-1:0]}];

    for (k_cpl = 0; k_cpl < N_QP; k_cpl = k_cpl + 1) begin
        cpl_take[k_cpl] = cpl_go && cpl_qp == k_cpl[QPW-1:0];
        head_ptr_next[(PTRW+1)*k_cpl +: PTRW+1] = head_ptr_reg[(PTRW+1)*k_cpl +: PTRW+1] +
                                                  {{PTRW{1'b0}}, cpl_take[k_cpl]};
    end

    cpl_rr_next = cpl_rr_reg;
    m_cpl_valid_next = m_cpl_valid_reg && !m_cpl_ready;
    if (cpl_go) begin
        m_cpl_valid_next = 1'b1;
        cpl_rr_next = cpl_qp;
    end
end

always @(posedge clk) begin
    head_ptr_reg <= head_ptr_next;
    cpl_rr_reg <= cpl_rr_next;
    cpl_pick_valid_reg <= cpl_pick_go;
    if (cpl_pick_go) begin
        cpl_pick_qp_reg <= cpl_pick_qp;
    end
    m_cpl_valid_reg <= m_cpl_valid_next;

    // datapath: the completion (cpl_go is the store signal)
    if (cpl_go) begin
        m_cpl_qp_reg <= cpl_qp;
        m_cpl_wr_id_reg <= cpl_wr_id;
        m_cpl_status_reg <= cpl_status[3*cpl_qp +: 3];
    end

    if (rst) begin
        head_ptr_reg <= {(PTRW+1)*N_QP{1'b0}};
        cpl_rr_reg <= {QPW{1'b0}};
        cpl_pick_valid_reg <= 1'b0;
        m_cpl_valid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Sender: round robin, one packet (or one skipped WR) every other cycle: the
// pick is registered (timing), and a frame takes at least two beats anyway

reg [N_QP-1:0] send_skip_wr;        // the WR at send_ptr lies wholly before send_psn: step over it
(* mem2reg *) reg [23:0] send_segment [0:N_QP-1];  // send_psn's packet of the WR at send_ptr
reg [N_QP-1:0] send_last;           // ... is its last
reg [N_QP-1:0] send_allowed;        // may send or skip (active, RTS, not failed, no RNR wait, a WR)
reg [N_QP-1:0] send_room;           // the window and the walker's lag allow a new packet
reg [N_QP-1:0] send_eligible;
reg            send_out_free;       // both output registers can take one
reg            send_s2_free;        // stage 2 can take a packet
reg            pick_go;             // the round robin picks a QP (to act on in the next cycle)
reg [QPW-1:0]  pick_qp;             // ... this one
reg            pick_valid_reg = 1'b0;
reg [QPW-1:0]  pick_qp_reg = {QPW{1'b0}};
wire           send_go;             // the sender sends a packet or skips a WR
wire [QPW-1:0] send_qp;             // ... of this QP
reg [23:0]     sel_segment;

// what each QP may do (from registers only)
always @* begin
    for (q_sel = 0; q_sel < N_QP; q_sel = q_sel + 1) begin
        sel_segment = send_psn_reg[q_sel] - send_wr_first_psn[q_sel];
        send_segment[q_sel] = sel_segment;
        send_last[q_sel] = sel_segment == send_wr_npkts[q_sel] - 24'd1;
        send_skip_wr[q_sel] = sel_segment >= send_wr_npkts[q_sel];
        send_allowed[q_sel] = qp_active_reg[q_sel] && !qp_failed_reg[q_sel] && qp_rts[q_sel] &&
                              !rnr_wait_reg[q_sel] && wq_has_send[q_sel];
        // window, and the walker no more than 2^23 PSNs behind (PSN compare range)
        send_room[q_sel] = ((send_psn_reg[q_sel] - unacked_psn_reg[q_sel]) < WINDOW_24) &&
                           !psn_lt(send_psn_reg[q_sel] - head_first_psn[q_sel], 24'd0);
    end
end

// round robin over the eligible QPs
always @* begin
    send_out_free = (!m_desc_valid_reg || m_desc_ready) && (!m_rd_valid_reg || m_rd_ready);
    send_s2_free = !s2_valid_reg || send_out_free;
    for (k_sel = 0; k_sel < N_QP; k_sel = k_sel + 1) begin
        send_eligible[k_sel] = send_allowed[k_sel] && (send_skip_wr[k_sel] || (send_room[k_sel] && send_s2_free));
    end

    // a pick every other cycle, never in the cycle its last one is acted on
    pick_go = 1'b0;
    pick_qp = send_rr_reg;
    for (k_sel = N_QP; k_sel >= 1; k_sel = k_sel - 1) begin
        n_sel = {{(32-QPW){1'b0}}, send_rr_reg} + k_sel;
        if (n_sel >= N_QP) begin
            n_sel = n_sel - N_QP;
        end
        if (send_eligible[n_sel] && !pick_valid_reg) begin
            pick_go = 1'b1;
            pick_qp = n_sel[QPW-1:0];
        end
    end
end

// The QP picked is acted on in the next cycle if it is still eligible (an ACK,
// a timer or a completion in between may have changed that; the sender's own
// state cannot change, as it acts at most every other cycle).
always @(posedge clk) begin
    pick_valid_reg <= pick_go;
    if (pick_go) begin
        pick_qp_reg <= pick_qp;
    end
    if (rst) begin
        pick_valid_reg <= 1'b0;
    end
end

assign send_qp = pick_qp_reg;
assign send_go = pick_valid_reg && send_eligible[pick_qp_reg];

// The packet, in two pipeline stages after the pick (timing at 322 MHz: the
// pick, the WR read and the payload arithmetic do not fit one cycle together).
// Stage 1: the QP picked, its PSN and the packet's place in the WR at send_ptr
// (from the per-QP view); the WR itself is read from its work queue memory on
// the clock (a block RAM read port) into stage 2.
wire [PTRW:0]          pkt_wq_ptr = send_ptr_reg[(PTRW+1)*send_qp +: PTRW+1];
wire [2:0]             pkt_pmtu_code = send_wr_pmtu[send_qp];
wire [23:0]            pkt_psn = send_psn_reg[send_qp];
wire [23:0]            pkt_unacked_psn = unacked_psn_reg[send_qp];
wire [23:0]            pkt_sent_end_psn = sent_end_psn_reg[send_qp];
// which packet of its WR (computed for each QP before the pick is known)
wire [23:0]            pkt_segment = send_segment[send_qp];
wire                   pkt_first = pkt_segment == 24'd0;
wire                   pkt_last = send_last[send_qp];
// ... and the payload's byte offset in it
wire [47:0]            pkt_offset_48 = {24'd0, pkt_segment} << (4'd8 + {1'b0, pkt_pmtu_code});
wire                   pkt_retransmit = pkt_psn != pkt_sent_end_psn;
// AckReq but for the last packet (stage 2 adds that: timing)
wire                   pkt_ack_req_mid = (pkt_psn[5:0] == 6'h3F) || ((pkt_psn - pkt_unacked_psn) == WINDOW_M1);

// Stage 2: the packet taken from stage 1, its WR as read from the memory
reg [QPW-1:0]          s2_qp_reg = {QPW{1'b0}};
reg [23:0]             s2_psn_reg = 24'd0;
reg [31:0]             s2_offset_reg = 32'd0;
reg [2:0]              s2_pmtu_code_reg = 3'd0;
reg                    s2_first_reg = 1'b0, s2_last_reg = 1'b0, s2_ack_req_reg = 1'b0, s2_retransmit_reg = 1'b0;
reg [WR_WIDTH-1:0]     s2_wr_reg = {WR_WIDTH{1'b0}};
wire [1:0]             s2_wr_opcode = s2_wr_reg[225:224];
wire [63:0]            s2_local_addr = s2_wr_reg[223:160];
wire [31:0]            s2_length = s2_wr_reg[159:128];
wire [63:0]            s2_remote_va = s2_wr_reg[127:64];
wire [31:0]            s2_rkey = s2_wr_reg[63:32];
wire [31:0]            s2_imm = s2_wr_reg[31:0];
// the payload's length (none only where the WR has none: length 0)
wire [31:0]            s2_remaining = s2_length - s2_offset_reg;
wire [12:0]            s2_pmtu_bytes = 13'd256 << s2_pmtu_code_reg;
wire [12:0]            s2_payload_len = (s2_remaining > {19'd0, s2_pmtu_bytes}) ? s2_pmtu_bytes : s2_remaining[12:0];
wire                   s2_has_payload = s2_length != s2_offset_reg;
wire [23:0]            s2_qpn = QPN_BASE_24 + {{(24-QPW){1'b0}}, s2_qp_reg};
wire [7:0]             s2_opcode = request_opcode(s2_wr_opcode, s2_first_reg, s2_last_reg);
// A packet picked or in stage 2 is dropped when its QP goes back this cycle
// (it is sent again from send_psn) or the ACK now decoded covers it: an
// acknowledged PSN is never sent.
wire                   pkt_kill = ack_timeout_retry[send_qp] || (ack_to_qp[send_qp] && (ack_go_back ||
                                  (ack_progress && psn_in(pkt_psn, ack_qp_unacked_psn, ack_new_unacked_psn))));
wire                   s2_kill = s2_valid_reg && (ack_timeout_retry[s2_qp_reg] || (ack_to_qp[s2_qp_reg] && (ack_go_back ||
                                  (ack_progress && psn_in(s2_psn_reg, ack_qp_unacked_psn, ack_new_unacked_psn)))));
// ... else it moves into the output registers
wire                   s2_advance = s2_valid_reg && send_out_free && !s2_kill;

wire send_skip = send_skip_wr[send_qp];
// a packet goes out
wire send_pkt = send_go && !send_skip;

always @* begin
    send_rr_next = send_rr_reg;

    s2_valid_next = (s2_valid_reg && !s2_advance && !s2_kill) || (send_pkt && !pkt_kill);
    m_desc_valid_next = (m_desc_valid_reg && !m_desc_ready) || s2_advance;
    ip_id_next = ip_id_reg;
    m_rd_valid_next = (m_rd_valid_reg && !m_rd_ready) || (s2_advance && s2_has_payload);

    stat_pkts_sent_next = stat_pkts_sent_reg;
    stat_retransmissions_next = stat_retransmissions_reg;

    if (send_go) begin
        send_rr_next = send_qp;
    end

    if (s2_advance) begin
        ip_id_next = ip_id_reg + 16'd1;
        stat_pkts_sent_next = stat_pkts_sent_reg + 32'd1;
        if (s2_retransmit_reg) begin
            stat_retransmissions_next = stat_retransmissions_reg + 32'd1;
        end
    end

    for (q_send = 0; q_send < N_QP; q_send = q_send + 1) begin
        this_send_psn = send_psn_reg[q_send];
        this_sent_end_psn = sent_end_psn_reg[q_send];
        this_send_ptr = send_ptr_reg[(PTRW+1)*q_send +: PTRW+1];

        // becoming active: the PSNs start at qp_loc_psn, nothing to send yet
        if (qp_init[q_send]) begin
            this_send_psn = qp_loc_psn[24*q_send +: 24];
            this_sent_end_psn = qp_loc_psn[24*q_send +: 24];
            this_send_ptr = tail_ptr_reg[(PTRW+1)*q_send +: PTRW+1];
        end

        // the WR at send_ptr completes (flushed): send_ptr follows head_ptr
        if (cpl_take[q_send] && !qp_init[q_send] &&
            send_ptr_reg[(PTRW+1)*q_send +: PTRW+1] == head_ptr_reg[(PTRW+1)*q_send +: PTRW+1]) begin
            this_send_ptr = head_ptr_next[(PTRW+1)*q_send +: PTRW+1];
        end

        // sending: the next PSN, the next WR after a skip or a WR's last packet
        if (send_go && send_qp == q_send[QPW-1:0]) begin
            if (send_skip || pkt_last) begin
                this_send_ptr = pkt_wq_ptr + 1'b1;
            end
            if (!send_skip) begin
                this_send_psn = pkt_psn + 24'd1;
                if (!pkt_retransmit) begin
                    this_sent_end_psn = pkt_psn + 24'd1;
                end
            end
        end

        // an acknowledgment past send_psn: resume at unacked_psn (never resend
        // an acknowledged PSN)
        if (ack_to_qp[q_send] && ack_passes_send_psn) begin
            this_send_psn = ack_new_unacked_psn;
            this_send_ptr = head_ptr_next[(PTRW+1)*q_send +: PTRW+1];
        end

        // go-back-N to the NAK's PSN (sequence error, RNR)
        if (ack_to_qp[q_send] && ack_go_back) begin
            this_send_psn = ack_psn_reg;
            this_send_ptr = head_ptr_next[(PTRW+1)*q_send +: PTRW+1];
        end

        // ACK timeout with a retry left: go back to unacked_psn
        if (ack_timeout_retry[q_send]) begin
            this_send_psn = unacked_psn_reg[q_send];
            this_send_ptr = head_ptr_next[(PTRW+1)*q_send +: PTRW+1];
        end

        send_psn_next[q_send] = this_send_psn;
        sent_end_psn_next[q_send] = this_sent_end_psn;
        send_ptr_next[(PTRW+1)*q_send +: PTRW+1] = this_send_ptr;
    end
end

always @(posedge clk) begin
    send_rr_reg <= send_rr_next;
    send_ptr_reg <= send_ptr_next;
    for (q_send_ff = 0; q_send_ff < N_QP; q_send_ff = q_send_ff + 1) begin
        send_psn_reg[q_send_ff] <= send_psn_next[q_send_ff];
        sent_end_psn_reg[q_send_ff] <= sent_end_psn_next[q_send_ff];
    end

    s2_valid_reg <= s2_valid_next;
    m_desc_valid_reg <= m_desc_valid_next;
    ip_id_reg <= ip_id_next;
    m_rd_valid_reg <= m_rd_valid_next;

    // datapath: stage 2 takes the packet (send_pkt is the store signal) and
    // reads its WR: the work queue memory's registered read port
    if (send_pkt) begin
        s2_qp_reg <= send_qp;
        s2_psn_reg <= pkt_psn;
        s2_offset_reg <= pkt_offset_48[31:0];
        s2_pmtu_code_reg <= pkt_pmtu_code;
        s2_first_reg <= pkt_first;
        s2_last_reg <= pkt_last;
        s2_ack_req_reg <= pkt_ack_req_mid;
        s2_retransmit_reg <= pkt_retransmit;
        s2_wr_reg <= wq_wr_mem[{send_qp, pkt_wq_ptr[PTRW-1:0]}];
    end

    // datapath: the packet's descriptor and memory read (s2_advance is the
    // store signal)
    if (s2_advance) begin
        m_desc_dst_mac_reg <= qp_rem_mac[48*s2_qp_reg +: 48];
        m_desc_dst_ip_reg <= qp_rem_ip[32*s2_qp_reg +: 32];
        m_desc_ip_id_reg <= ip_id_reg;
        m_desc_udp_sport_reg <= {2'b11, s2_qpn[13:0]};
        m_desc_opcode_reg <= s2_opcode;
        m_desc_ack_req_reg <= s2_ack_req_reg || s2_last_reg;
        m_desc_dest_qp_reg <= qp_rem_qpn[24*s2_qp_reg +: 24];
        m_desc_psn_reg <= s2_psn_reg;
        m_desc_reth_va_reg <= s2_remote_va;
        m_desc_reth_rkey_reg <= s2_rkey;
        m_desc_reth_len_reg <= s2_length;
        m_desc_imm_reg <= s2_imm;
        m_desc_payload_len_reg <= s2_payload_len;
        if (s2_has_payload) begin
            m_rd_addr_reg <= s2_local_addr + {32'd0, s2_offset_reg};
            m_rd_len_reg <= s2_payload_len;
        end
    end

    stat_pkts_sent_reg <= stat_pkts_sent_next;
    stat_retransmissions_reg <= stat_retransmissions_next;

    if (rst) begin
        send_rr_reg <= {QPW{1'b0}};
        send_ptr_reg <= {(PTRW+1)*N_QP{1'b0}};
        s2_valid_reg <= 1'b0;
        m_desc_valid_reg <= 1'b0;
        ip_id_reg <= 16'd0;
        m_rd_valid_reg <= 1'b0;
        stat_pkts_sent_reg <= 32'd0;
        stat_retransmissions_reg <= 32'd0;
    end
end

// ---------------------------------------------------------------------------
// Timers: the free-running 4.096 us and 10 us ticks, the local ACK timer and
// the RNR wait of each QP

// the ACK timer's load value: 2^timeout + 1 ticks
reg [31:0] ack_timer_load;

// the ticks
always @* begin
    tick_4us_next = 1'b0;
    tick_10us_next = 1'b0;
    if (prescale_4us_reg == TICK_4US_LAST) begin
        prescale_4us_next = 32'd0;
        tick_4us_next = 1'b1;
    end else begin
        prescale_4us_next = prescale_4us_reg + 32'd1;
    end
    if (prescale_10us_reg == TICK_10US_LAST) begin
        prescale_10us_next = 32'd0;
        tick_10us_next = 1'b1;
    end else begin
        prescale_10us_next = prescale_10us_reg + 32'd1;
    end
end

// the timers of each QP
always @* begin

    for (q_tmr = 0; q_tmr < N_QP; q_tmr = q_tmr + 1) begin
        this_ack_timer_on = ack_timer_on_reg[q_tmr];
        this_ack_timer = ack_timer_reg[q_tmr];
        this_rnr_wait = rnr_wait_reg[q_tmr];
        this_rnr_timer = rnr_timer_reg[q_tmr];

        ack_timer_load = (32'd1 << cfg_timeout[5*q_tmr +: 5]) + 32'd1;

        // the timers run down; the RNR wait ends when its timer is out
        if (tick_4us_reg && ack_timer_reg[q_tmr] != 32'd0) begin
            this_ack_timer = ack_timer_reg[q_tmr] - 32'd1;
        end
        if (tick_10us_reg && rnr_timer_reg[q_tmr] != 17'd0) begin
            this_rnr_timer = rnr_timer_reg[q_tmr] - 17'd1;
        end
        if (rnr_wait_reg[q_tmr] && rnr_timer_reg[q_tmr] == 17'd0) begin
            this_rnr_wait = 1'b0;
        end

        // leaving RTS, becoming active: all stopped
        if (!qp_rts[q_tmr] || qp_init[q_tmr]) begin
            this_ack_timer_on = 1'b0;
            this_rnr_wait = 1'b0;
        end

        if (ack_to_qp[q_tmr]) begin
            // progress restarts the ACK timer, or stops it with nothing outstanding
            if (ack_progress) begin
                if (ack_outstanding_left && cfg_timeout[5*q_tmr +: 5] != 5'd0) begin
                    this_ack_timer_on = 1'b1;
                    this_ack_timer = ack_timer_load;
                end else begin
                    this_ack_timer_on = 1'b0;
                end
            end
            // an RNR NAK with a retry left: wait out its timer
            if (ack_rnr_nak && !ack_rnr_nak_exhausted) begin
                this_rnr_wait = 1'b1;
                this_rnr_timer = rnr_ticks(ack_value) + 17'd1;
            end
            if (ack_timer_stop) begin
                this_ack_timer_on = 1'b0;
            end
            if (ack_fail) begin
                this_rnr_wait = 1'b0;
            end
        end

        // the ACK timer ran out: restarted for the retry, else stopped
        if (ack_timer_expired[q_tmr]) begin
            if (ack_timeout_retry[q_tmr]) begin
                this_ack_timer = ack_timer_load;
            end else begin
                this_ack_timer_on = 1'b0;
            end
        end

        // every packet sent restarts the ACK timer
        if (send_pkt && send_qp == q_tmr[QPW-1:0] && cfg_timeout[5*q_tmr +: 5] != 5'd0 &&
            !(ack_to_qp[q_tmr] && ack_timer_stop)) begin
            this_ack_timer_on = 1'b1;
            this_ack_timer = ack_timer_load;
        end

        ack_timer_on_next[q_tmr] = this_ack_timer_on;
        ack_timer_next[q_tmr] = this_ack_timer;
        rnr_wait_next[q_tmr] = this_rnr_wait;
        rnr_timer_next[q_tmr] = this_rnr_timer;
    end
end

always @(posedge clk) begin
    prescale_4us_reg <= prescale_4us_next;
    prescale_10us_reg <= prescale_10us_next;
    tick_4us_reg <= tick_4us_next;
    tick_10us_reg <= tick_10us_next;
    ack_timer_on_reg <= ack_timer_on_next;
    rnr_wait_reg <= rnr_wait_next;
    for (q_tmr_ff = 0; q_tmr_ff < N_QP; q_tmr_ff = q_tmr_ff + 1) begin
        ack_timer_reg[q_tmr_ff] <= ack_timer_next[q_tmr_ff];
        rnr_timer_reg[q_tmr_ff] <= rnr_timer_next[q_tmr_ff];
    end

    if (rst) begin
        prescale_4us_reg <= 32'd0;
        prescale_10us_reg <= 32'd0;
        tick_4us_reg <= 1'b0;
        tick_10us_reg <= 1'b0;
        ack_timer_on_reg <= {N_QP{1'b0}};
        rnr_wait_reg <= {N_QP{1'b0}};
        for (q_tmr_ff = 0; q_tmr_ff < N_QP; q_tmr_ff = q_tmr_ff + 1) begin
            ack_timer_reg[q_tmr_ff] <= 32'd0;
            rnr_timer_reg[q_tmr_ff] <= 17'd0;
        end
    end
end

// ---------------------------------------------------------------------------
// ACK state: unacked_psn, the retry counters, the go-back mark; the ACK input
// register and the NAK counters

always @* begin

    for (q_state = 0; q_state < N_QP; q_state = q_state + 1) begin
        this_unacked_psn = unacked_psn_reg[q_state];
        this_retry_left = retry_left_reg[3*q_state +: 3];
        this_rnr_retry_left = rnr_retry_left_reg[3*q_state +: 3];
        this_went_back = went_back_reg[q_state];

        if (qp_init[q_state]) begin
            this_unacked_psn = qp_loc_psn[24*q_state +: 24];
            this_retry_left = cfg_retry_cnt[3*q_state +: 3];
            this_rnr_retry_left = cfg_rnr_retry[3*q_state +: 3];
            this_went_back = 1'b0;
        end

        if (ack_to_qp[q_state]) begin
            // progress reloads the retry counters and clears the go-back mark
            if (ack_progress) begin
                this_unacked_psn = ack_new_unacked_psn;
                this_retry_left = cfg_retry_cnt[3*q_state +: 3];
                this_rnr_retry_left = cfg_rnr_retry[3*q_state +: 3];
                this_went_back = 1'b0;
            end
            if (ack_go_back) begin
                this_went_back = 1'b1;
            end
            if (ack_seq_nak && !ack_seq_nak_exhausted) begin
                this_retry_left = ack_retry_left - 3'd1;
            end
            if (ack_rnr_nak && !ack_rnr_nak_exhausted && ack_cfg_rnr_retry != 3'd7) begin
                this_rnr_retry_left = ack_rnr_retry_left - 3'd1;
            end
        end

        // an ACK timeout uses a retry
        if (ack_timeout_retry[q_state]) begin
            this_retry_left = retry_left_reg[3*q_state +: 3] - 3'd1;
        end

        unacked_psn_next[q_state] = this_unacked_psn;
        retry_left_next[3*q_state +: 3] = this_retry_left;
        rnr_retry_left_next[3*q_state +: 3] = this_rnr_retry_left;
        went_back_next[q_state] = this_went_back;
    end

    stat_naks_next = stat_naks_reg;
    stat_rnr_naks_next = stat_rnr_naks_reg;
    if (ack_valid_reg && ack_for_us && ack_is_nak) begin
        stat_naks_next = stat_naks_reg + 32'd1;
    end
    if (ack_valid_reg && ack_for_us && ack_is_rnr_nak) begin
        stat_rnr_naks_next = stat_rnr_naks_reg + 32'd1;
    end
end

always @(posedge clk) begin
    for (q_state_ff = 0; q_state_ff < N_QP; q_state_ff = q_state_ff + 1) begin
        unacked_psn_reg[q_state_ff] <= unacked_psn_next[q_state_ff];
    end
    retry_left_reg <= retry_left_next;
    rnr_retry_left_reg <= rnr_retry_left_next;
    went_back_reg <= went_back_next;
    stat_naks_reg <= stat_naks_next;
    stat_rnr_naks_reg <= stat_rnr_naks_next;

    // input register: one descriptor per cycle
    ack_ready_reg <= 1'b1;
    ack_valid_reg <= s_ack_valid && ack_ready_reg;
    if (s_ack_valid && ack_ready_reg) begin
        ack_dest_qp_reg <= s_ack_dest_qp;
        ack_psn_reg <= s_ack_psn;
        ack_syndrome_reg <= s_ack_syndrome;
    end

    if (rst) begin
        went_back_reg <= {N_QP{1'b0}};
        stat_naks_reg <= 32'd0;
        stat_rnr_naks_reg <= 32'd0;
        ack_ready_reg <= 1'b0;
        ack_valid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// QP status: active / failed, the completion status after a failure,
// qp_error, the timeout counter

always @* begin

    for (q_stat = 0; q_stat < N_QP; q_stat = q_stat + 1) begin
        this_qp_active = qp_active_reg[q_stat];
        this_qp_failed = qp_failed_reg[q_stat];
        this_fail_status = fail_status_reg[3*q_stat +: 3];

        if (!qp_rts[q_stat]) begin
            this_qp_active = 1'b0;
        end
        if (qp_init[q_stat]) begin
            this_qp_active = 1'b1;
            this_qp_failed = 1'b0;
            this_fail_status = WC_FLUSHED;
        end
        // after the failing WR, the rest are flushed
        if (cpl_take[q_stat] && cpl_status[3*q_stat +: 3] != WC_SUCCESS) begin
            this_fail_status = WC_FLUSHED;
        end
        if (ack_to_qp[q_stat] && ack_fail) begin
            this_qp_failed = 1'b1;
            this_fail_status = ack_fail_status;
        end
        if (ack_timeout_fail[q_stat]) begin
            this_qp_failed = 1'b1;
            this_fail_status = WC_RETRY_EXC;
        end

        qp_error_next[q_stat] = (ack_to_qp[q_stat] && ack_fail) || ack_timeout_fail[q_stat];

        qp_active_next[q_stat] = this_qp_active;
        qp_failed_next[q_stat] = this_qp_failed;
        fail_status_next[3*q_stat +: 3] = this_fail_status;
    end

    stat_timeouts_next = stat_timeouts_reg + ack_timeouts;
end

always @(posedge clk) begin
    qp_active_reg <= qp_active_next;
    qp_failed_reg <= qp_failed_next;
    fail_status_reg <= fail_status_next;
    qp_error_reg <= qp_error_next;
    stat_timeouts_reg <= stat_timeouts_next;

    if (rst) begin
        qp_active_reg <= {N_QP{1'b0}};
        qp_failed_reg <= {N_QP{1'b0}};
        qp_error_reg <= {N_QP{1'b0}};
        stat_timeouts_reg <= 32'd0;
    end
end

// ---------------------------------------------------------------------------
// WR posting: the WR in the input register goes into its QP's queue at
// tail_ptr with its PSNs (or is dropped: a QP index out of range)

wire              post_qp_ok = {{(24-QPW){1'b0}}, wr_qp_reg} < N_QP_24;
wire              post_go = wr_valid_reg && !wq_full[wr_qp_reg] && post_qp_ok;
wire              post_drop = wr_valid_reg && !post_qp_ok;
wire [2:0]        post_pmtu_code = pmtu_clamp(qp_pmtu_code[3*wr_qp_reg +: 3]);
wire              post_init = qp_init[wr_qp_reg];
// posted to a QP that is not active (nor becoming so) or has failed: flushed
wire              post_flush = !(qp_active_reg[wr_qp_reg] || post_init) || (qp_failed_reg[wr_qp_reg] && !post_init);
wire [23:0]       post_first_psn = post_init ? qp_loc_psn[24*wr_qp_reg +: 24] : post_psn_reg[wr_qp_reg];
// packets: max(1, ceil(length / PMTU))
wire [32:0]       post_length_up = {1'b0, wr_length_reg} + {20'd0, (13'd256 << post_pmtu_code) - 13'd1};
wire [32:0]       post_npkts_33 = post_length_up >> (4'd8 + {1'b0, post_pmtu_code});
wire [23:0]       post_npkts = (wr_length_reg == 32'd0) ? 24'd1 : post_npkts_33[23:0];
wire [PTRW:0]     post_tail_ptr = tail_ptr_reg[(PTRW+1)*wr_qp_reg +: PTRW+1];
wire [WQ_AW-1:0]  post_addr = {wr_qp_reg, post_tail_ptr[PTRW-1:0]};

assign s_wr_ready = !wr_valid_reg || post_go || post_drop;

always @* begin
    wr_valid_next = wr_valid_reg;
    if (s_wr_valid && s_wr_ready) begin
        wr_valid_next = 1'b1;
    end else if (post_go || post_drop) begin
        wr_valid_next = 1'b0;
    end
end

// the QP's queue: tail_ptr and the PSNs of the next WR
always @* begin
    for (q_post = 0; q_post < N_QP; q_post = q_post + 1) begin
        this_post_psn = post_psn_reg[q_post];
        this_tail_ptr = tail_ptr_reg[(PTRW+1)*q_post +: PTRW+1];

        if (qp_init[q_post]) begin
            this_post_psn = qp_loc_psn[24*q_post +: 24];
        end
        if (post_go && wr_qp_reg == q_post[QPW-1:0]) begin
            this_tail_ptr = tail_ptr_reg[(PTRW+1)*q_post +: PTRW+1] + 1'b1;
            this_post_psn = post_first_psn + post_npkts;
        end

        post_psn_next[q_post] = this_post_psn;
        tail_ptr_next[(PTRW+1)*q_post +: PTRW+1] = this_tail_ptr;
    end
end

always @(posedge clk) begin
    wr_valid_reg <= wr_valid_next;
    tail_ptr_reg <= tail_ptr_next;
    for (q_post_ff = 0; q_post_ff < N_QP; q_post_ff = q_post_ff + 1) begin
        post_psn_reg[q_post_ff] <= post_psn_next[q_post_ff];
    end

    // datapath: the WR taken in
    if (s_wr_valid && s_wr_ready) begin
        wr_qp_reg <= s_wr_qp;
        wr_opcode_reg <= s_wr_opcode;
        wr_local_addr_reg <= s_wr_local_addr;
        wr_length_reg <= s_wr_length;
        wr_remote_va_reg <= s_wr_remote_va;
        wr_rkey_reg <= s_wr_rkey;
        wr_imm_reg <= s_wr_imm;
        wr_wr_id_reg <= s_wr_wr_id;
    end

    if (rst) begin
        wr_valid_reg <= 1'b0;
        tail_ptr_reg <= {(PTRW+1)*N_QP{1'b0}};
    end
end

// the work queues (no reset)
always @(posedge clk) begin
    if (post_go) begin
        wq_wr_mem[post_addr] <= {wr_opcode_reg, wr_local_addr_reg, wr_length_reg, wr_remote_va_reg,
                                 wr_rkey_reg, wr_imm_reg};
        wq_seg_mem[post_addr] <= {post_flush, post_pmtu_code, post_first_psn, post_npkts};
        wq_wr_id_mem[post_addr] <= wr_wr_id_reg;
    end
end

// the MSN is not needed (completion follows the PSN); bits not looked at
wire unused_ok = ^{s_ack_msn, view_head_seg[50:48], view_send_seg[51], cpl_head_ptr[PTRW],
                   pkt_offset_48[47:32], s2_qpn[23:14], post_npkts_33[32:24], post_tail_ptr[PTRW]};

// ---------------------------------------------------------------------------
// Outputs

assign s_ack_ready = ack_ready_reg;

assign m_desc_valid = m_desc_valid_reg;
assign m_desc_dst_mac = m_desc_dst_mac_reg;
assign m_desc_src_mac = cfg_mac;
assign m_desc_src_ip = cfg_ip;
assign m_desc_dst_ip = m_desc_dst_ip_reg;
assign m_desc_ip_id = m_desc_ip_id_reg;
assign m_desc_tos = 8'd0;
assign m_desc_udp_sport = m_desc_udp_sport_reg;
assign m_desc_opcode = m_desc_opcode_reg;
assign m_desc_solicited = 1'b0;
assign m_desc_ack_req = m_desc_ack_req_reg;
assign m_desc_dest_qp = m_desc_dest_qp_reg;
assign m_desc_psn = m_desc_psn_reg;
assign m_desc_reth_va = m_desc_reth_va_reg;
assign m_desc_reth_rkey = m_desc_reth_rkey_reg;
assign m_desc_reth_len = m_desc_reth_len_reg;
assign m_desc_imm = m_desc_imm_reg;
assign m_desc_payload_len = m_desc_payload_len_reg;

assign m_rd_valid = m_rd_valid_reg;
assign m_rd_addr = m_rd_addr_reg;
assign m_rd_len = m_rd_len_reg;

assign m_cpl_valid = m_cpl_valid_reg;
assign m_cpl_qp = m_cpl_qp_reg;
assign m_cpl_wr_id = m_cpl_wr_id_reg;
assign m_cpl_status = m_cpl_status_reg;

assign qp_error = qp_error_reg;
assign stat_pkts_sent = stat_pkts_sent_reg;
assign stat_retransmissions = stat_retransmissions_reg;
assign stat_timeouts = stat_timeouts_reg;
assign stat_naks = stat_naks_reg;
assign stat_rnr_naks = stat_rnr_naks_reg;

endmodule

`default_nettype wire
`resetall
