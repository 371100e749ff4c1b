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
 *   head  oldest WR not yet completed       (moved by the completion walker)
 *   cur   the WR holding the next PSN to send (moved by the sender, set back
 *         by go-back)
 *   tail  next free entry                     (moved by posting)
 * A WR gets its PSNs when it is posted: first_psn = the QP's next PSN,
 * npkts = max(1, ceil(length / PMTU)) with the QP's PMTU at that moment (kept
 * in the entry, so a later PMTU change affects only later WRs). Lengths up to
 * 2^31 bytes (IBA's maximum message) are supported.
 *
 * Per-QP PSN state: una (oldest unacknowledged), nxt (next to send), hi (one
 * past the highest ever sent). The segment a PSN stands for is computed from
 * (nxt - first_psn) of its WR, so going back to any PSN is just setting nxt
 * (and cur to the oldest WR; the sender skips WRs that lie wholly before nxt,
 * one per cycle, without sending).
 *
 * Sending: round robin over the QPs that are in RTS (qp_state 3), initialised,
 * not in error, not waiting out an RNR NAK, have a WR at cur, and have fewer
 * than WINDOW PSNs outstanding (nxt - una). One packet per cycle when both
 * output registers are free. Opcodes First/Middle/Last/Only at the PMTU
 * (256 << pmtu_code, codes above 4 taken as 4); RETH on WRITE First/Only
 * (va = remote_va, rkey, DMA length = the WR's length); ImmDt on the last
 * packet of *_IMM. AckReq on every Last/Only, on every PSN whose low six
 * bits are all ones (at least every 64 packets), and on the packet that fills
 * the window. ip_id counts packets (all QPs); tos 0; solicited 0;
 * udp_sport = 0xC000 | QPN[13:0].
 *
 * ACKs (one per cycle, s_ack_ready is always high after reset): for a QP of
 * ours that is initialised, in RTS and not in error; the PSN must be one sent
 * and not yet acknowledged (una <= psn < hi), else the descriptor is ignored
 * (stale / duplicate ACKs and NAKs; the counters still count NAKs).
 *   ACK psn p             una = p + 1 (coalesced, cumulative)
 *   NAK seq error p       una = p; then, unless already gone back with no
 *                         progress since (or waiting out an RNR NAK), one
 *                         retry is counted and nxt = p (go-back-N)
 *   RNR NAK p, code t     una = p; one RNR retry counted (rnr_retry 7 =
 *                         unlimited); nxt = p; no sending on the QP until the
 *                         RNR timer of code t has run out
 *   NAK 1/2/3 (others     una = p; the WR holding p completes with status
 *   taken as 1)           3/4/5, every later WR with 6 (flushed); qp_error
 * Progress (una moving forward) reloads retry_cnt and rnr_retry, clears the
 * "gone back" mark and restarts the ACK timer (or stops it with nothing
 * outstanding). An acknowledgment that overtakes a go-back moves nxt up to
 * una: an acknowledged PSN is never resent.
 *
 * Local ACK timer (cfg_timeout t != 0): restarted by every packet sent and by
 * progress; on expiry (with something outstanding) one retry is counted and
 * nxt = una. A retry with none left (retry_cnt counts retries: 0 = none)
 * completes the WR holding una with status 1 (2 for RNR), flushes the rest
 * and pulses qp_error.
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
 * Completions: in WR order per QP, round robin over the QPs. Status 0 success
 * (the WR's last PSN is acknowledged), 1 retry exceeded, 2 RNR retry exceeded,
 * 3 remote invalid request, 4 remote access error, 5 remote operational error,
 * 6 flushed (after an error, or posted to / left in a QP that is not in RTS).
 *
 * QP life: a QP becomes initialised when qp_state is RTS and its queue is
 * empty (its PSNs start at qp_loc_psn, retry counters loaded, error cleared);
 * it stays so until qp_state leaves RTS. WRs posted to a QP that is not
 * initialised or is in error are completed as flushed. After a fatal error
 * the QP sends nothing until it leaves RTS (roce_cm puts it into ERROR on the
 * qp_error pulse) and is brought back to RTS.
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

localparam QW = $clog2(N_QP);
localparam PW = $clog2(WQ_DEPTH);
localparam AW = QW + PW;
localparam NE = 1 << AW;

// WQ entry, part A (read by the sender): opcode, local_addr, length,
// remote_va, rkey, imm
localparam AE = 2 + 64 + 32 + 64 + 32 + 32;
// part B (sender and walker): flush, pmtu code, first_psn, npkts
localparam BE = 1 + 3 + 24 + 24;

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
localparam [PW:0] DEPTH_P = WQ_DEPTH[PW:0];

// timer ticks, rounded up
localparam [63:0] T4_64 = (64'd4096 * CLK_FREQ_HZ + 64'd999999999) / 64'd1000000000;
localparam [63:0] T10_64 = (64'd10 * CLK_FREQ_HZ + 64'd999999) / 64'd1000000;
localparam [31:0] T4_M1 = T4_64[31:0] - 32'd1;
localparam [31:0] T10_M1 = T10_64[31:0] - 32'd1;

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
    if (WQ_DEPTH < 2 || (1 << PW) != WQ_DEPTH) begin
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
    reg [23:0] d;
    begin
        d = a - b;
        psn_lt = |(d & 24'h800000);
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

// ---------------------------------------------------------------------------
// Storage

reg [AE-1:0] wq_a [0:NE-1];
reg [BE-1:0] wq_b [0:NE-1];
reg [63:0]   wq_c [0:NE-1];

reg [(PW+1)*N_QP-1:0] head_reg = {(PW+1)*N_QP{1'b0}};
reg [(PW+1)*N_QP-1:0] cur_reg = {(PW+1)*N_QP{1'b0}};
reg [(PW+1)*N_QP-1:0] tail_reg = {(PW+1)*N_QP{1'b0}};
reg [24*N_QP-1:0] post_psn_reg = {24*N_QP{1'b0}};
reg [24*N_QP-1:0] una_reg = {24*N_QP{1'b0}};
reg [24*N_QP-1:0] nxt_reg = {24*N_QP{1'b0}};
reg [24*N_QP-1:0] hi_reg = {24*N_QP{1'b0}};
reg [N_QP-1:0] live_reg = {N_QP{1'b0}};
reg [N_QP-1:0] err_reg = {N_QP{1'b0}};
reg [N_QP-1:0] nak_seen_reg = {N_QP{1'b0}};
reg [N_QP-1:0] rnr_wait_reg = {N_QP{1'b0}};
reg [N_QP-1:0] tmr_on_reg = {N_QP{1'b0}};
reg [3*N_QP-1:0] err_code_reg = {3*N_QP{1'b0}};
reg [3*N_QP-1:0] retry_left_reg = {3*N_QP{1'b0}};
reg [3*N_QP-1:0] rnr_left_reg = {3*N_QP{1'b0}};
reg [32*N_QP-1:0] ack_tmr_reg = {32*N_QP{1'b0}};
reg [17*N_QP-1:0] rnr_tmr_reg = {17*N_QP{1'b0}};

reg [31:0] pre4_reg = 32'd0;
reg [31:0] pre10_reg = 32'd0;
reg tick4_reg = 1'b0;
reg tick10_reg = 1'b0;

reg [QW-1:0] rr_send_reg = {QW{1'b0}};
reg [QW-1:0] rr_cpl_reg = {QW{1'b0}};

// WR input register
reg         wr_v_reg = 1'b0;
reg [QW-1:0] wr_qp_reg = {QW{1'b0}};
reg [1:0]   wr_op_reg = 2'd0;
reg [63:0]  wr_laddr_reg = 64'd0;
reg [31:0]  wr_len_reg = 32'd0;
reg [63:0]  wr_rva_reg = 64'd0;
reg [31:0]  wr_rkey_reg = 32'd0;
reg [31:0]  wr_imm_reg = 32'd0;
reg [63:0]  wr_id_reg = 64'd0;

// ACK input register
reg         ack_ready_reg = 1'b0;
reg         ack_v_reg = 1'b0;
reg [23:0]  ack_qp_reg = 24'd0;
reg [23:0]  ack_psn_reg = 24'd0;
reg [7:0]   ack_syn_reg = 8'd0;

// outputs
reg         desc_v_reg = 1'b0;
reg [47:0]  desc_dst_mac_reg = 48'd0;
reg [31:0]  desc_dst_ip_reg = 32'd0;
reg [15:0]  desc_ip_id_reg = 16'd0;
reg [15:0]  desc_sport_reg = 16'd0;
reg [7:0]   desc_opcode_reg = 8'd0;
reg         desc_ack_req_reg = 1'b0;
reg [23:0]  desc_dest_qp_reg = 24'd0;
reg [23:0]  desc_psn_reg = 24'd0;
reg [63:0]  desc_va_reg = 64'd0;
reg [31:0]  desc_rkey_reg = 32'd0;
reg [31:0]  desc_len_reg = 32'd0;
reg [31:0]  desc_imm_reg = 32'd0;
reg [12:0]  desc_plen_reg = 13'd0;
reg [15:0]  ip_id_reg = 16'd0;

reg         rd_v_reg = 1'b0;
reg [63:0]  rd_addr_reg = 64'd0;
reg [12:0]  rd_len_reg = 13'd0;

reg         cpl_v_reg = 1'b0;
reg [QW-1:0] cpl_qp_reg = {QW{1'b0}};
reg [63:0]  cpl_id_reg = 64'd0;
reg [2:0]   cpl_status_reg = 3'd0;

reg [N_QP-1:0] qp_error_reg = {N_QP{1'b0}};
reg [31:0]  cnt_sent_reg = 32'd0;
reg [31:0]  cnt_retx_reg = 32'd0;
reg [31:0]  cnt_tmo_reg = 32'd0;
reg [31:0]  cnt_nak_reg = 32'd0;
reg [31:0]  cnt_rnr_reg = 32'd0;


// ---------------------------------------------------------------------------
// Per-QP view: the WRs at head and cur

reg [N_QP-1:0] rts;
reg [N_QP-1:0] init_q;          // becomes initialised this cycle
reg [N_QP-1:0] full_q;
reg [N_QP-1:0] skip_q;          // the WR at cur lies wholly before nxt
reg [N_QP-1:0] base_q;          // may send or skip
reg [N_QP-1:0] room_q;          // window and walker lag allow a new packet
reg [N_QP-1:0] cand_q;          // the WR at head can complete
reg [3*N_QP-1:0] cstat_q;       // ... with this status

reg [PW:0]  v_h, v_c, v_t;
reg [QW-1:0] v_qi;
reg [BE-1:0] v_hb, v_cb;
reg [23:0]  v_hlast, v_d, v_una, v_nxt;
reg         v_hacked;

// loop indices, one set per always block
integer ia, ib, k_ib, x_ib, ic, k_ic, x_ic, ih, id, ie, ig;

always @* begin
    for (ia = 0; ia < N_QP; ia = ia + 1) begin
        v_qi = ia[QW-1:0];
        v_h = head_reg[(PW+1)*ia +: PW+1];
        v_c = cur_reg[(PW+1)*ia +: PW+1];
        v_t = tail_reg[(PW+1)*ia +: PW+1];
        v_una = una_reg[24*ia +: 24];
        v_nxt = nxt_reg[24*ia +: 24];
        v_hb = wq_b[{v_qi, v_h[PW-1:0]}];
        v_cb = wq_b[{v_qi, v_c[PW-1:0]}];

        rts[ia] = qp_state[3*ia +: 3] == ST_RTS;
        init_q[ia] = rts[ia] && !live_reg[ia] && v_h == v_t;
        full_q[ia] = (v_t - v_h) == DEPTH_P;

        // completion walker: acknowledged, or flushed
        v_hlast = v_hb[47:24] + v_hb[23:0] - 24'd1;
        v_hacked = !v_hb[51] && psn_lt(v_hlast, v_una);
        cand_q[ia] = (v_h != v_t) && (v_hacked || v_hb[51] || !live_reg[ia] || err_reg[ia]);
        cstat_q[3*ia +: 3] = v_hacked ? WC_SUCCESS : (err_reg[ia] ? err_code_reg[3*ia +: 3] : WC_FLUSHED);

        // sender
        v_d = v_nxt - v_cb[47:24];
        skip_q[ia] = v_d >= v_cb[23:0];
        base_q[ia] = live_reg[ia] && !err_reg[ia] && rts[ia] && !rnr_wait_reg[ia] && (v_c != v_t);
        // window, and the walker no more than 2^23 PSNs behind (PSN compare range)
        room_q[ia] = ((v_nxt - v_una) < WINDOW_24) && !psn_lt(v_nxt - v_hb[47:24], 24'd0);
    end
end

// ---------------------------------------------------------------------------
// Completion walker: round robin

reg         cpl_free;
reg         cpl_go;
reg [QW-1:0] cpl_w;
reg [N_QP-1:0] cpl_q;           // head of QP i completes
reg [(PW+1)*N_QP-1:0] head_next;

always @* begin
    cpl_free = !cpl_v_reg || m_cpl_ready;
    cpl_go = 1'b0;
    cpl_w = rr_cpl_reg;
    for (k_ib = N_QP; k_ib >= 1; k_ib = k_ib - 1) begin
        x_ib = {{(32-QW){1'b0}}, rr_cpl_reg} + k_ib;
        if (x_ib >= N_QP) begin
            x_ib = x_ib - N_QP;
        end
        if (cand_q[x_ib]) begin
            cpl_go = cpl_free;
            cpl_w = x_ib[QW-1:0];
        end
    end
    for (ib = 0; ib < N_QP; ib = ib + 1) begin
        cpl_q[ib] = cpl_go && cpl_w == ib[QW-1:0];
        head_next[(PW+1)*ib +: PW+1] = head_reg[(PW+1)*ib +: PW+1] + {{PW{1'b0}}, cpl_q[ib]};
    end
end

wire [PW:0] cpl_h = head_reg[(PW+1)*cpl_w +: PW+1];
wire [63:0] cpl_id = wq_c[{cpl_w, cpl_h[PW-1:0]}];

// ---------------------------------------------------------------------------
// Sender: round robin, one packet (or one skipped WR) per cycle

reg         out_free;
reg         send_go;
reg [QW-1:0] snd;
reg [N_QP-1:0] elig;

always @* begin
    out_free = (!desc_v_reg || m_desc_ready) && (!rd_v_reg || m_rd_ready);
    for (ic = 0; ic < N_QP; ic = ic + 1) begin
        elig[ic] = base_q[ic] && (skip_q[ic] || (room_q[ic] && out_free));
    end
    send_go = 1'b0;
    snd = rr_send_reg;
    for (k_ic = N_QP; k_ic >= 1; k_ic = k_ic - 1) begin
        x_ic = {{(32-QW){1'b0}}, rr_send_reg} + k_ic;
        if (x_ic >= N_QP) begin
            x_ic = x_ic - N_QP;
        end
        if (elig[x_ic]) begin
            send_go = 1'b1;
            snd = x_ic[QW-1:0];
        end
    end
end

wire [PW:0]   s_cur = cur_reg[(PW+1)*snd +: PW+1];
wire [AE-1:0] s_a = wq_a[{snd, s_cur[PW-1:0]}];
wire [BE-1:0] s_b = wq_b[{snd, s_cur[PW-1:0]}];
wire [1:0]    s_op = s_a[225:224];
wire [63:0]   s_laddr = s_a[223:160];
wire [31:0]   s_len = s_a[159:128];
wire [63:0]   s_rva = s_a[127:64];
wire [31:0]   s_rkey = s_a[63:32];
wire [31:0]   s_imm = s_a[31:0];
wire [2:0]    s_pc = s_b[50:48];
wire [23:0]   s_fpsn = s_b[47:24];
wire [23:0]   s_npk = s_b[23:0];
wire [23:0]   s_nxt = nxt_reg[24*snd +: 24];
wire [23:0]   s_una = una_reg[24*snd +: 24];
wire [23:0]   s_hi = hi_reg[24*snd +: 24];
wire [23:0]   s_d = s_nxt - s_fpsn;
wire [47:0]   s_off48 = {24'd0, s_d} << (4'd8 + {1'b0, s_pc});
wire [31:0]   s_off = s_off48[31:0];
wire [31:0]   s_rem = s_len - s_off;
wire [12:0]   s_pmtu = 13'd256 << s_pc;
wire [12:0]   s_plen = (s_rem > {19'd0, s_pmtu}) ? s_pmtu : s_rem[12:0];
wire          s_first = s_d == 24'd0;
wire          s_last = s_d == s_npk - 24'd1;
wire          s_skip = skip_q[snd];
wire          s_emit = send_go && !s_skip;
wire          s_retx = s_nxt != s_hi;
wire [23:0]   s_qpn = QPN_BASE_24 + {{(24-QW){1'b0}}, snd};

reg [7:0] s_opcode;
always @* begin
    if (s_op[1]) begin
        // RDMA WRITE
        if (s_first && s_last) begin
            s_opcode = s_op[0] ? 8'h0B : 8'h0A;
        end else if (s_first) begin
            s_opcode = 8'h06;
        end else if (s_last) begin
            s_opcode = s_op[0] ? 8'h09 : 8'h08;
        end else begin
            s_opcode = 8'h07;
        end
    end else begin
        // SEND
        if (s_first && s_last) begin
            s_opcode = s_op[0] ? 8'h05 : 8'h04;
        end else if (s_first) begin
            s_opcode = 8'h00;
        end else if (s_last) begin
            s_opcode = s_op[0] ? 8'h03 : 8'h02;
        end else begin
            s_opcode = 8'h01;
        end
    end
end

wire s_ack_req = s_last || (s_nxt[5:0] == 6'h3F) || ((s_nxt - s_una) == WINDOW_M1);

// ---------------------------------------------------------------------------
// WR posting

wire        post_go = wr_v_reg && !full_q[wr_qp_reg] && ({{(24-QW){1'b0}}, wr_qp_reg} < N_QP_24);
wire        post_drop = wr_v_reg && ({{(24-QW){1'b0}}, wr_qp_reg} >= N_QP_24);
wire [2:0]  post_pc = pmtu_clamp(qp_pmtu_code[3*wr_qp_reg +: 3]);
wire        post_init = init_q[wr_qp_reg];
wire        post_flush = !(live_reg[wr_qp_reg] || post_init) || (err_reg[wr_qp_reg] && !post_init);
wire [23:0] post_fpsn = post_init ? qp_loc_psn[24*wr_qp_reg +: 24] : post_psn_reg[24*wr_qp_reg +: 24];
wire [32:0] post_sum = {1'b0, wr_len_reg} + {20'd0, (13'd256 << post_pc) - 13'd1};
wire [32:0] post_n33 = post_sum >> (4'd8 + {1'b0, post_pc});
wire [23:0] post_npk = (wr_len_reg == 32'd0) ? 24'd1 : post_n33[23:0];
wire [PW:0] post_t = tail_reg[(PW+1)*wr_qp_reg +: PW+1];
wire [AW-1:0] post_addr = {wr_qp_reg, post_t[PW-1:0]};

assign s_wr_ready = !wr_v_reg || post_go || post_drop;

// ---------------------------------------------------------------------------
// ACK decode (from the input register)

wire [23:0] a_idx24 = ack_qp_reg - QPN_BASE_24;
wire        a_ours = a_idx24 < N_QP_24;
wire [QW-1:0] a_q = a_idx24[QW-1:0];
wire        a_active = ack_v_reg && a_ours && live_reg[a_q] && !err_reg[a_q] && rts[a_q];
wire [23:0] a_una = una_reg[24*a_q +: 24];
wire [23:0] a_nxt = nxt_reg[24*a_q +: 24];
wire [23:0] a_hi = hi_reg[24*a_q +: 24];
wire [1:0]  a_type = ack_syn_reg[6:5];
wire [4:0]  a_val = ack_syn_reg[4:0];
wire        a_is_ack = a_type == 2'b00;
wire        a_is_rnr = a_type == 2'b01;
wire        a_is_nak = a_type == 2'b11;
wire        a_inwin = (ack_psn_reg - a_una) < (a_hi - a_una);
wire        a_valid = a_active && a_inwin && !ack_syn_reg[7] && a_type != 2'b10;
wire [23:0] a_new_una = a_is_ack ? ack_psn_reg + 24'd1 : ack_psn_reg;
wire        a_prog = a_valid && a_new_una != a_una;
wire        a_past_nxt = a_prog && ((a_new_una - a_una) > (a_nxt - a_una));
wire        a_outst = a_new_una != a_hi;
wire [2:0]  a_cfg_retry = cfg_retry_cnt[3*a_q +: 3];
wire [2:0]  a_cfg_rnr = cfg_rnr_retry[3*a_q +: 3];
wire [2:0]  a_retry_eff = a_prog ? a_cfg_retry : retry_left_reg[3*a_q +: 3];
wire [2:0]  a_rnr_eff = a_prog ? a_cfg_rnr : rnr_left_reg[3*a_q +: 3];
wire        a_seen_eff = !a_prog && (nak_seen_reg[a_q] || rnr_wait_reg[a_q]);
// sequence NAK that goes back
wire        a_seq = a_valid && a_is_nak && a_val == 5'd0 && !a_seen_eff;
wire        a_seq_fail = a_seq && a_retry_eff == 3'd0;
// RNR NAK
wire        a_rnr = a_valid && a_is_rnr;
wire        a_rnr_fail = a_rnr && a_cfg_rnr != 3'd7 && a_rnr_eff == 3'd0;
// fatal NAK
wire        a_fatal_nak = a_valid && a_is_nak && a_val != 5'd0;
wire [2:0]  a_fatal_code = (a_val == 5'd2) ? WC_REM_ACC : ((a_val == 5'd3) ? WC_REM_OP : WC_REM_INV);
wire        a_fatal = a_fatal_nak || a_seq_fail || a_rnr_fail;
wire [2:0]  a_code = a_fatal_nak ? a_fatal_code : (a_seq_fail ? WC_RETRY_EXC : WC_RNR_EXC);
wire        a_goback = (a_seq && !a_seq_fail) || (a_rnr && !a_rnr_fail);
// the ACK timer stops (RNR wait, error)
wire        a_stop = a_rnr || a_fatal;

// ---------------------------------------------------------------------------
// State update

reg [N_QP-1:0] exp_q;           // the ACK timer ran out
always @* begin
    for (ih = 0; ih < N_QP; ih = ih + 1) begin
        exp_q[ih] = tmr_on_reg[ih] && ack_tmr_reg[32*ih +: 32] == 32'd0 && live_reg[ih] && !err_reg[ih] &&
                   rts[ih] && !rnr_wait_reg[ih] && !(ack_v_reg && a_ours && a_q == ih[QW-1:0]);
    end
end

// timeouts this cycle, and QPs that fail this cycle (qp_error)
reg [31:0] n_tmo;
reg [N_QP-1:0] fatal_q;
always @* begin
    n_tmo = 32'd0;
    for (id = 0; id < N_QP; id = id + 1) begin
        fatal_q[id] = (ack_v_reg && a_ours && a_q == id[QW-1:0] && a_fatal) ||
                     (exp_q[id] && una_reg[24*id +: 24] != hi_reg[24*id +: 24] && retry_left_reg[3*id +: 3] == 3'd0);
        if (exp_q[id] && una_reg[24*id +: 24] != hi_reg[24*id +: 24]) begin
            n_tmo = n_tmo + 32'd1;
        end
    end
end

// ACK timer load per QP: 2^timeout + 1 ticks
reg [32*N_QP-1:0] tmr_load;
always @* begin
    for (ie = 0; ie < N_QP; ie = ie + 1) begin
        tmr_load[32*ie +: 32] = (32'd1 << cfg_timeout[5*ie +: 5]) + 32'd1;
    end
end

always @(posedge clk) begin
    // input registers
    ack_ready_reg <= 1'b1;
    ack_v_reg <= s_ack_valid && ack_ready_reg;
    if (s_ack_valid && ack_ready_reg) begin
        ack_qp_reg <= s_ack_dest_qp;
        ack_psn_reg <= s_ack_psn;
        ack_syn_reg <= s_ack_syndrome;
    end

    if (s_wr_valid && s_wr_ready) begin
        wr_v_reg <= 1'b1;
        wr_qp_reg <= s_wr_qp;
        wr_op_reg <= s_wr_opcode;
        wr_laddr_reg <= s_wr_local_addr;
        wr_len_reg <= s_wr_length;
        wr_rva_reg <= s_wr_remote_va;
        wr_rkey_reg <= s_wr_rkey;
        wr_imm_reg <= s_wr_imm;
        wr_id_reg <= s_wr_wr_id;
    end else if (post_go || post_drop) begin
        wr_v_reg <= 1'b0;
    end

    if (post_go) begin
        wq_a[post_addr] <= {wr_op_reg, wr_laddr_reg, wr_len_reg, wr_rva_reg, wr_rkey_reg, wr_imm_reg};
        wq_b[post_addr] <= {post_flush, post_pc, post_fpsn, post_npk};
        wq_c[post_addr] <= wr_id_reg;
    end

    // prescalers
    tick4_reg <= 1'b0;
    tick10_reg <= 1'b0;
    if (pre4_reg == T4_M1) begin
        pre4_reg <= 32'd0;
        tick4_reg <= 1'b1;
    end else begin
        pre4_reg <= pre4_reg + 32'd1;
    end
    if (pre10_reg == T10_M1) begin
        pre10_reg <= 32'd0;
        tick10_reg <= 1'b1;
    end else begin
        pre10_reg <= pre10_reg + 32'd1;
    end

    // outputs
    if (m_desc_ready) begin
        desc_v_reg <= 1'b0;
    end
    if (m_rd_ready) begin
        rd_v_reg <= 1'b0;
    end
    if (m_cpl_ready) begin
        cpl_v_reg <= 1'b0;
    end

    if (cpl_go) begin
        cpl_v_reg <= 1'b1;
        cpl_qp_reg <= cpl_w;
        cpl_id_reg <= cpl_id;
        cpl_status_reg <= cstat_q[3*cpl_w +: 3];
        rr_cpl_reg <= cpl_w;
    end

    if (send_go) begin
        rr_send_reg <= snd;
    end
    if (s_emit) begin
        desc_v_reg <= 1'b1;
        desc_dst_mac_reg <= qp_rem_mac[48*snd +: 48];
        desc_dst_ip_reg <= qp_rem_ip[32*snd +: 32];
        desc_ip_id_reg <= ip_id_reg;
        desc_sport_reg <= {2'b11, s_qpn[13:0]};
        desc_opcode_reg <= s_opcode;
        desc_ack_req_reg <= s_ack_req;
        desc_dest_qp_reg <= qp_rem_qpn[24*snd +: 24];
        desc_psn_reg <= s_nxt;
        desc_va_reg <= s_rva;
        desc_rkey_reg <= s_rkey;
        desc_len_reg <= s_len;
        desc_imm_reg <= s_imm;
        desc_plen_reg <= s_plen;
        ip_id_reg <= ip_id_reg + 16'd1;
        if (s_plen != 13'd0) begin
            rd_v_reg <= 1'b1;
            rd_addr_reg <= s_laddr + {32'd0, s_off};
            rd_len_reg <= s_plen;
        end
        cnt_sent_reg <= cnt_sent_reg + 32'd1;
        if (s_retx) begin
            cnt_retx_reg <= cnt_retx_reg + 32'd1;
        end
    end

    if (ack_v_reg && a_ours) begin
        if (a_is_nak) begin
            cnt_nak_reg <= cnt_nak_reg + 32'd1;
        end
        if (a_is_rnr) begin
            cnt_rnr_reg <= cnt_rnr_reg + 32'd1;
        end
    end

    // per QP
    for (ig = 0; ig < N_QP; ig = ig + 1) begin
        // timers run down
        if (tick4_reg && ack_tmr_reg[32*ig +: 32] != 32'd0) begin
            ack_tmr_reg[32*ig +: 32] <= ack_tmr_reg[32*ig +: 32] - 32'd1;
        end
        if (tick10_reg && rnr_tmr_reg[17*ig +: 17] != 17'd0) begin
            rnr_tmr_reg[17*ig +: 17] <= rnr_tmr_reg[17*ig +: 17] - 17'd1;
        end
        if (rnr_wait_reg[ig] && rnr_tmr_reg[17*ig +: 17] == 17'd0) begin
            rnr_wait_reg[ig] <= 1'b0;
        end

        // leaving RTS
        if (!rts[ig]) begin
            live_reg[ig] <= 1'b0;
            tmr_on_reg[ig] <= 1'b0;
            rnr_wait_reg[ig] <= 1'b0;
        end

        // entering RTS with an empty queue
        if (init_q[ig]) begin
            live_reg[ig] <= 1'b1;
            err_reg[ig] <= 1'b0;
            err_code_reg[3*ig +: 3] <= WC_FLUSHED;
            nak_seen_reg[ig] <= 1'b0;
            rnr_wait_reg[ig] <= 1'b0;
            tmr_on_reg[ig] <= 1'b0;
            retry_left_reg[3*ig +: 3] <= cfg_retry_cnt[3*ig +: 3];
            rnr_left_reg[3*ig +: 3] <= cfg_rnr_retry[3*ig +: 3];
            una_reg[24*ig +: 24] <= qp_loc_psn[24*ig +: 24];
            nxt_reg[24*ig +: 24] <= qp_loc_psn[24*ig +: 24];
            hi_reg[24*ig +: 24] <= qp_loc_psn[24*ig +: 24];
            post_psn_reg[24*ig +: 24] <= qp_loc_psn[24*ig +: 24];
            cur_reg[(PW+1)*ig +: PW+1] <= tail_reg[(PW+1)*ig +: PW+1];
        end

        // posting
        if (post_go && wr_qp_reg == ig[QW-1:0]) begin
            tail_reg[(PW+1)*ig +: PW+1] <= tail_reg[(PW+1)*ig +: PW+1] + 1'b1;
            post_psn_reg[24*ig +: 24] <= post_fpsn + post_npk;
        end

        // completion
        if (cpl_q[ig]) begin
            head_reg[(PW+1)*ig +: PW+1] <= head_next[(PW+1)*ig +: PW+1];
            if (cstat_q[3*ig +: 3] != WC_SUCCESS) begin
                err_code_reg[3*ig +: 3] <= WC_FLUSHED;
            end
            if (cur_reg[(PW+1)*ig +: PW+1] == head_reg[(PW+1)*ig +: PW+1] && !init_q[ig]) begin
                cur_reg[(PW+1)*ig +: PW+1] <= head_next[(PW+1)*ig +: PW+1];
            end
        end

        // sending
        if (send_go && snd == ig[QW-1:0]) begin
            if (s_skip || s_last) begin
                cur_reg[(PW+1)*ig +: PW+1] <= s_cur + 1'b1;
            end
            if (!s_skip) begin
                nxt_reg[24*ig +: 24] <= s_nxt + 24'd1;
                if (!s_retx) begin
                    hi_reg[24*ig +: 24] <= s_nxt + 24'd1;
                end
            end
        end

        // ACK / NAK / RNR NAK
        if (ack_v_reg && a_ours && a_q == ig[QW-1:0]) begin
            if (a_prog) begin
                una_reg[24*ig +: 24] <= a_new_una;
                retry_left_reg[3*ig +: 3] <= cfg_retry_cnt[3*ig +: 3];
                rnr_left_reg[3*ig +: 3] <= cfg_rnr_retry[3*ig +: 3];
                nak_seen_reg[ig] <= 1'b0;
                if (a_outst && cfg_timeout[5*ig +: 5] != 5'd0) begin
                    tmr_on_reg[ig] <= 1'b1;
                    ack_tmr_reg[32*ig +: 32] <= tmr_load[32*ig +: 32];
                end else begin
                    tmr_on_reg[ig] <= 1'b0;
                end
                if (a_past_nxt) begin
                    nxt_reg[24*ig +: 24] <= a_new_una;
                    cur_reg[(PW+1)*ig +: PW+1] <= head_next[(PW+1)*ig +: PW+1];
                end
            end
            if (a_goback) begin
                nxt_reg[24*ig +: 24] <= ack_psn_reg;
                cur_reg[(PW+1)*ig +: PW+1] <= head_next[(PW+1)*ig +: PW+1];
                nak_seen_reg[ig] <= 1'b1;
            end
            if (a_seq && !a_seq_fail) begin
                retry_left_reg[3*ig +: 3] <= a_retry_eff - 3'd1;
            end
            if (a_rnr && !a_rnr_fail) begin
                if (a_cfg_rnr != 3'd7) begin
                    rnr_left_reg[3*ig +: 3] <= a_rnr_eff - 3'd1;
                end
                rnr_wait_reg[ig] <= 1'b1;
                rnr_tmr_reg[17*ig +: 17] <= rnr_ticks(a_val) + 17'd1;
            end
            if (a_stop) begin
                tmr_on_reg[ig] <= 1'b0;
            end
            if (a_fatal) begin
                err_reg[ig] <= 1'b1;
                err_code_reg[3*ig +: 3] <= a_code;
                rnr_wait_reg[ig] <= 1'b0;
            end
        end

        // the ACK timer ran out
        if (exp_q[ig]) begin
            if (una_reg[24*ig +: 24] == hi_reg[24*ig +: 24]) begin
                tmr_on_reg[ig] <= 1'b0;
            end else begin
                if (retry_left_reg[3*ig +: 3] == 3'd0) begin
                    err_reg[ig] <= 1'b1;
                    err_code_reg[3*ig +: 3] <= WC_RETRY_EXC;
                    tmr_on_reg[ig] <= 1'b0;
                end else begin
                    retry_left_reg[3*ig +: 3] <= retry_left_reg[3*ig +: 3] - 3'd1;
                    nxt_reg[24*ig +: 24] <= una_reg[24*ig +: 24];
                    cur_reg[(PW+1)*ig +: PW+1] <= head_next[(PW+1)*ig +: PW+1];
                    ack_tmr_reg[32*ig +: 32] <= tmr_load[32*ig +: 32];
                end
            end
        end

        // every packet sent restarts the ACK timer
        if (s_emit && snd == ig[QW-1:0] && cfg_timeout[5*ig +: 5] != 5'd0 &&
            !(ack_v_reg && a_ours && a_q == ig[QW-1:0] && a_stop)) begin
            tmr_on_reg[ig] <= 1'b1;
            ack_tmr_reg[32*ig +: 32] <= tmr_load[32*ig +: 32];
        end
    end
    qp_error_reg <= fatal_q;
    cnt_tmo_reg <= cnt_tmo_reg + n_tmo;

    if (rst) begin
        ack_ready_reg <= 1'b0;
        ack_v_reg <= 1'b0;
        wr_v_reg <= 1'b0;
        desc_v_reg <= 1'b0;
        rd_v_reg <= 1'b0;
        cpl_v_reg <= 1'b0;
        pre4_reg <= 32'd0;
        pre10_reg <= 32'd0;
        tick4_reg <= 1'b0;
        tick10_reg <= 1'b0;
        rr_send_reg <= {QW{1'b0}};
        rr_cpl_reg <= {QW{1'b0}};
        head_reg <= {(PW+1)*N_QP{1'b0}};
        cur_reg <= {(PW+1)*N_QP{1'b0}};
        tail_reg <= {(PW+1)*N_QP{1'b0}};
        live_reg <= {N_QP{1'b0}};
        err_reg <= {N_QP{1'b0}};
        nak_seen_reg <= {N_QP{1'b0}};
        rnr_wait_reg <= {N_QP{1'b0}};
        tmr_on_reg <= {N_QP{1'b0}};
        ack_tmr_reg <= {32*N_QP{1'b0}};
        rnr_tmr_reg <= {17*N_QP{1'b0}};
        qp_error_reg <= {N_QP{1'b0}};
        ip_id_reg <= 16'd0;
        cnt_sent_reg <= 32'd0;
        cnt_retx_reg <= 32'd0;
        cnt_tmo_reg <= 32'd0;
        cnt_nak_reg <= 32'd0;
        cnt_rnr_reg <= 32'd0;
    end
end

// the MSN is not needed (completion follows the PSN); bits not looked at
wire unused_ok = ^{s_ack_msn, v_hb[50:48], v_cb[51:48], cpl_h[PW], s_b[BE-1], s_off48[47:32],
                   s_qpn[23:14], post_n33[32:24], post_t[PW]};

// ---------------------------------------------------------------------------
// Outputs

assign s_ack_ready = ack_ready_reg;

assign m_desc_valid = desc_v_reg;
assign m_desc_dst_mac = desc_dst_mac_reg;
assign m_desc_src_mac = cfg_mac;
assign m_desc_src_ip = cfg_ip;
assign m_desc_dst_ip = desc_dst_ip_reg;
assign m_desc_ip_id = desc_ip_id_reg;
assign m_desc_tos = 8'd0;
assign m_desc_udp_sport = desc_sport_reg;
assign m_desc_opcode = desc_opcode_reg;
assign m_desc_solicited = 1'b0;
assign m_desc_ack_req = desc_ack_req_reg;
assign m_desc_dest_qp = desc_dest_qp_reg;
assign m_desc_psn = desc_psn_reg;
assign m_desc_reth_va = desc_va_reg;
assign m_desc_reth_rkey = desc_rkey_reg;
assign m_desc_reth_len = desc_len_reg;
assign m_desc_imm = desc_imm_reg;
assign m_desc_payload_len = desc_plen_reg;

assign m_rd_valid = rd_v_reg;
assign m_rd_addr = rd_addr_reg;
assign m_rd_len = rd_len_reg;

assign m_cpl_valid = cpl_v_reg;
assign m_cpl_qp = cpl_qp_reg;
assign m_cpl_wr_id = cpl_id_reg;
assign m_cpl_status = cpl_status_reg;

assign qp_error = qp_error_reg;
assign stat_pkts_sent = cnt_sent_reg;
assign stat_retransmissions = cnt_retx_reg;
assign stat_timeouts = cnt_tmo_reg;
assign stat_naks = cnt_nak_reg;
assign stat_rnr_naks = cnt_rnr_reg;

endmodule

`resetall
