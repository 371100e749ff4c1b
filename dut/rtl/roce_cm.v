/*
 * roce_cm: the out-of-band connection manager (../../shared/spec/cm-frame.md):
 * CM requests in, CM replies out, and the state of N_QP queue pairs.
 *
 * Input: one descriptor per CM frame from the RX parser (which has already
 * checked UDP destination port 0x4321, UDP length 72 and destination IP):
 * the source MAC / IP / UDP port and the 64-byte payload, byte 0 in
 * s_cm_payload[511:504], so a big-endian field of bytes n..n+k-1 is the
 * slice s_cm_payload[511-8n -: 8k].
 *
 * Payload as read here (the spec's table; the host tools pack every QPN and
 * PSN as a 32-bit big-endian value, whose top byte is the "zero byte"):
 *   byte 0    bit 0 qp_info_valid, bits 3-1 req_type, bit 4 ack_valid
 *             (bits 7-5, ack_type, are not read)
 *   1-4       loc_qpn as 32 bits: compared whole with QPN_BASE + index, so a
 *             non-zero byte 1 names no QP of ours (-> NAK)
 *   5-24      loc_psn / loc_rkey / loc_base_addr / loc_ip: not read (FPGA side)
 *   25, 29    must be zero in SEND_QP_INFO (else NAK: the QPN / PSN the host
 *             gave does not fit 24 bits, or the frame is laid out otherwise)
 *   26-28     rem_qpn, 30-32 rem_psn, 33-36 rem_rkey, 37-44 rem_base_addr,
 *   45-48     rem_ip (read by SEND_QP_INFO only)
 *   49-50     listening_port
 *   51        bit 0 txmeta_valid, 1 start, 2 is_immediate, 3 tx_type
 *             (bits 7-4 not read)
 *   52-63     dma_length, n_transfers, frequency
 *
 * What a frame does (one frame at a time, in arrival order):
 *   ack_valid set           a reply, not a request: dropped, no answer (two
 *                           endpoints never ping-pong NAKs); counted in
 *                           cm_frames only
 *   request = qp_info_valid and req_type 1..4; a frame with a request AND
 *   txmeta_valid is refused whole (NAK, nothing changes)
 *   OPEN_QP (1)             the lowest QP in RESET -> INIT, ACK with its loc_*;
 *                           none free -> NO_QP. loc_qpn of the request is
 *                           ignored. The QP's PMTU becomes cfg_pmtu_code
 *                           (a code > 4 is taken as 4).
 *   SEND_QP_INFO (2)        QP in INIT -> RTR, stores rem_qpn / rem_psn /
 *                           rem_rkey / rem_base_addr / rem_ip and the frame's
 *                           source MAC (rem_mac), ACK; else NAK
 *   MODIFY_QP_RTS (3)       QP in RTR -> RTS, ACK; else NAK
 *   CLOSE_QP (4)            QP in INIT / RTR / RTS / ERROR -> RESET (free),
 *                           rem_* and loc_psn cleared, ACK (the reply shows
 *                           the values it had); QP not allocated -> NAK
 *   no request, txmeta_valid: a txmeta command for the QP named by loc_qpn
 *                           (bytes 1-4), which must be in RTS: ACK, and with
 *                           start set one m_txmeta descriptor; else NAK
 *   no request, no txmeta (req_type NULL / 5 / 6 / ERROR, or qp_info_valid
 *                           clear): NAK
 * "QP named by loc_qpn": index = loc_qpn - QPN_BASE, which must be < N_QP and
 * the QP not in RESET ("allocated"). Retried requests are not idempotent: a
 * second SEND_QP_INFO or MODIFY_QP_RTS (say after a lost ACK) gets a NAK.
 * ERROR is entered only on qp_error[i] (a pulse, ignored while QP i is in
 * RESET or when the CM frees QP i in the same cycle); it is left only by
 * CLOSE_QP. States: RESET 0, INIT 1, RTR 2, RTS 3, ERROR 7.
 *
 * QP i: QPN = QPN_BASE + i; loc_psn = cfg_psn + i * 0x10000 (mod 2^24),
 * loaded when the QP is opened; loc_rkey / loc_base_addr / loc_ip are
 * cfg_rkey / cfg_base_addr / cfg_ip for every QP.
 *
 * Reply (every request frame gets exactly one, ack_valid frames none): to
 * the request's source MAC and IP; Ethernet II from cfg_mac / IPv4 (IHL 5,
 * TOS 0, total length 92, ID counting replies from 0, DF, TTL 64, UDP,
 * header checksum) from cfg_ip / UDP from 0x8765 to listening_port (to the
 * request's UDP source port when listening_port is 0, which is what the
 * host tool's txmeta frame carries), length 72, checksum 0 / 64 bytes:
 *   byte 0 = {ack_type, ack_valid 1, req_type, qp_info_valid 1}, req_type
 *   echoing the request (1..4), 0 for a frame without one; loc_qpn, loc_psn
 *   (zero byte first), cfg_rkey, cfg_base_addr, cfg_ip, rem_qpn, rem_psn,
 *   rem_rkey, rem_base_addr, rem_ip of the QP concerned as stored (after
 *   OPEN / SEND_QP_INFO / MODIFY_QP_RTS, before CLOSE_QP clears them); every
 *   other byte zero. With no QP concerned (NO_QP, or a NAK for a QP not
 *   allocated) loc_qpn, loc_psn and rem_* are zero (QPN 0 is never ours).
 * 106 bytes: ceil(106 / KEEP_WIDTH) beats, tuser always 0; the first 42
 * (Ethernet, IPv4, UDP) come from eth_ipv4_udp_header.
 *
 * Counters (32 bits, wrapping): cm_frames every descriptor taken; cm_acks,
 * cm_naks, cm_no_qp every reply of that type.
 *
 * Control port: ctrl_valid with ctrl_qp and ctrl_pmtu_code sets QP ctrl_qp's
 * PMTU code (any state; an OPEN in the same cycle loses); a code > 4 or an
 * index >= N_QP is refused: nothing changes and ctrl_refused pulses a cycle
 * later. OPEN_QP resets the code to cfg_pmtu_code, so set it after the open.
 *
 * Pipeline: A (the descriptor, decoded; s_cm_ready = !A) -> decide (state
 * updates, counters, txmeta, the reply's fields into B) -> B -> the frame is
 * built into a shift register that m_axis_* is driven from. A frame whose
 * txmeta would start waits in A while m_txmeta_valid is high. Every ready
 * and valid comes from a register.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_cm #
(
    // Width of the reply stream in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    // Queue pairs (>= 4); QP i has QPN QPN_BASE + i
    parameter N_QP = 4,
    parameter QPN_BASE = 256
)
(
    input  wire                       clk,
    input  wire                       rst,

    /*
     * Configuration (static)
     */
    input  wire [47:0]                cfg_mac,
    input  wire [31:0]                cfg_ip,
    input  wire [31:0]                cfg_rkey,
    input  wire [63:0]                cfg_base_addr,
    input  wire [23:0]                cfg_psn,
    input  wire [2:0]                 cfg_pmtu_code,

    /*
     * CM frame from the RX parser
     */
    input  wire                       s_cm_valid,
    output wire                       s_cm_ready,
    input  wire [47:0]                s_cm_src_mac,
    input  wire [31:0]                s_cm_src_ip,
    input  wire [15:0]                s_cm_src_port,
    input  wire [511:0]               s_cm_payload,

    /*
     * Fatal error of a QP (requester: fatal NAK or retries exhausted), pulse
     */
    input  wire [N_QP-1:0]            qp_error,

    /*
     * Control: set one QP's PMTU code (256 << code, code 0..4)
     */
    input  wire                       ctrl_valid,
    input  wire [$clog2(N_QP)-1:0]    ctrl_qp,
    input  wire [2:0]                 ctrl_pmtu_code,
    output wire                       ctrl_refused,

    /*
     * CM reply frames (no FCS)
     */
    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,
    output wire                       m_axis_tuser,

    /*
     * Per-QP state, QP i in bits [W*i +: W]
     */
    output wire [3*N_QP-1:0]          qp_state,
    output wire [24*N_QP-1:0]         qp_rem_qpn,
    output wire [24*N_QP-1:0]         qp_rem_psn,
    output wire [32*N_QP-1:0]         qp_rem_rkey,
    output wire [64*N_QP-1:0]         qp_rem_base_addr,
    output wire [32*N_QP-1:0]         qp_rem_ip,
    output wire [48*N_QP-1:0]         qp_rem_mac,
    output wire [24*N_QP-1:0]         qp_loc_psn,
    output wire [3*N_QP-1:0]          qp_pmtu_code,

    /*
     * Transfer start (a txmeta frame with start set, QP in RTS)
     */
    output wire                       m_txmeta_valid,
    input  wire                       m_txmeta_ready,
    output wire [$clog2(N_QP)-1:0]    m_txmeta_qp,
    output wire                       m_txmeta_is_immediate,
    output wire                       m_txmeta_tx_type,      // 0 SEND, 1 WRITE
    output wire [31:0]                m_txmeta_dma_length,
    output wire [31:0]                m_txmeta_n_transfers,
    output wire [31:0]                m_txmeta_frequency,

    /*
     * Counters
     */
    output wire [31:0]                cm_frames,
    output wire [31:0]                cm_acks,
    output wire [31:0]                cm_naks,
    output wire [31:0]                cm_no_qp
);

// ---------------------------------------------------------------------------
// Constants

localparam QPW = $clog2(N_QP);

localparam [2:0] ST_RESET = 3'd0;
localparam [2:0] ST_INIT  = 3'd1;
localparam [2:0] ST_RTR   = 3'd2;
localparam [2:0] ST_RTS   = 3'd3;
localparam [2:0] ST_ERROR = 3'd7;

localparam [2:0] REQ_NULL          = 3'd0;
localparam [2:0] REQ_OPEN_QP       = 3'd1;
localparam [2:0] REQ_SEND_QP_INFO  = 3'd2;
localparam [2:0] REQ_MODIFY_QP_RTS = 3'd3;
localparam [2:0] REQ_CLOSE_QP      = 3'd4;

localparam [2:0] ACK_ACK   = 3'd1;
localparam [2:0] ACK_NO_QP = 3'd2;
localparam [2:0] ACK_NAK   = 3'd3;

localparam [15:0] CM_REPLY_PORT = 16'h8765;

// Ethernet 14 + IPv4 20 + UDP 8 + CM payload 64
localparam FRAME_BYTES = 106;
localparam [15:0] IP_TOTAL_LENGTH = 16'd92;   // IPv4 20 + UDP 8 + 64
localparam [15:0] UDP_LENGTH = 16'd72;        // UDP 8 + 64
localparam BEATS = (FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam FRAME_WIDTH = BEATS * DATA_WIDTH;
localparam LAST_BYTES = FRAME_BYTES - (BEATS - 1) * KEEP_WIDTH;
localparam BW = $clog2(BEATS + 1);
localparam integer BEATS_M1_I = BEATS - 1;
localparam [BW-1:0] BEATS_M1 = BEATS_M1_I[BW-1:0];
localparam [KEEP_WIDTH-1:0] LAST_KEEP = {KEEP_WIDTH{1'b1}} >> (KEEP_WIDTH - LAST_BYTES);

localparam [31:0] QPN_BASE_32 = QPN_BASE[31:0];
localparam [31:0] N_QP_32 = N_QP[31:0];
localparam [23:0] QPN_BASE_24 = QPN_BASE[23:0];
localparam [QPW:0] N_QP_IDX = N_QP[QPW:0];

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if (N_QP < 4) begin
        $error("Error: N_QP must be at least 4 (instance %m)");
        $finish;
    end
    if (QPN_BASE < 2 || QPN_BASE + N_QP > 24'hFFFFFF) begin
        $error("Error: QPN_BASE .. QPN_BASE + N_QP - 1 must lie in 2 .. 0xFFFFFE (instance %m)");
        $finish;
    end
end

// loc_psn of QP i: cfg_psn + i * 0x10000, mod 2^24
function [23:0] psn_of(input [QPW-1:0] idx);
    begin
        psn_of = cfg_psn + ({{(24-QPW){1'b0}}, idx} << 16);
    end
endfunction

// ---------------------------------------------------------------------------
// Per-QP state

reg [3*N_QP-1:0]  qp_state_reg = {3*N_QP{1'b0}}, qp_state_next;
reg [24*N_QP-1:0] qp_rem_qpn_reg = {24*N_QP{1'b0}};
reg [24*N_QP-1:0] qp_rem_psn_reg = {24*N_QP{1'b0}};
reg [32*N_QP-1:0] qp_rem_rkey_reg = {32*N_QP{1'b0}};
reg [64*N_QP-1:0] qp_rem_base_addr_reg = {64*N_QP{1'b0}};
reg [32*N_QP-1:0] qp_rem_ip_reg = {32*N_QP{1'b0}};
reg [48*N_QP-1:0] qp_rem_mac_reg = {48*N_QP{1'b0}};
reg [24*N_QP-1:0] qp_loc_psn_reg = {24*N_QP{1'b0}};
reg [3*N_QP-1:0]  qp_pmtu_code_reg = {3*N_QP{1'b0}};

assign qp_state = qp_state_reg;
assign qp_rem_qpn = qp_rem_qpn_reg;
assign qp_rem_psn = qp_rem_psn_reg;
assign qp_rem_rkey = qp_rem_rkey_reg;
assign qp_rem_base_addr = qp_rem_base_addr_reg;
assign qp_rem_ip = qp_rem_ip_reg;
assign qp_rem_mac = qp_rem_mac_reg;
assign qp_loc_psn = qp_loc_psn_reg;
assign qp_pmtu_code = qp_pmtu_code_reg;

// ---------------------------------------------------------------------------
// Stage A: the descriptor, decoded

`define CM_FIELD(n, len) s_cm_payload[511-8*(n) -: 8*(len)]

wire [7:0]  in_flags     = `CM_FIELD(0, 1);
wire [31:0] in_loc_qpn   = `CM_FIELD(1, 4);
wire [7:0]  in_qpn_pad   = `CM_FIELD(25, 1);
wire [23:0] in_rem_qpn   = `CM_FIELD(26, 3);
wire [7:0]  in_psn_pad   = `CM_FIELD(29, 1);
wire [23:0] in_rem_psn   = `CM_FIELD(30, 3);
wire [31:0] in_rem_rkey  = `CM_FIELD(33, 4);
wire [63:0] in_rem_base  = `CM_FIELD(37, 8);
wire [31:0] in_rem_ip    = `CM_FIELD(45, 4);
wire [15:0] in_lport     = `CM_FIELD(49, 2);
wire [7:0]  in_txm_flags = `CM_FIELD(51, 1);
wire [31:0] in_dma_len   = `CM_FIELD(52, 4);
wire [31:0] in_n_xfers   = `CM_FIELD(56, 4);
wire [31:0] in_freq      = `CM_FIELD(60, 4);
// the FPGA-side fields of a request (bytes 5-24), ack_type and the txmeta
// flags' top bits mean nothing to the FPGA
wire unused_payload = ^{`CM_FIELD(5, 20), in_flags[7:5], in_txm_flags[7:4]};

`undef CM_FIELD

wire [31:0] in_qpn_diff = in_loc_qpn - QPN_BASE_32;
wire in_idx_ok = (in_loc_qpn >= QPN_BASE_32) && (in_qpn_diff < N_QP_32);
wire in_is_req = in_flags[0] && (in_flags[3:1] >= REQ_OPEN_QP) && (in_flags[3:1] <= REQ_CLOSE_QP);

reg a_valid_reg = 1'b0;
reg [47:0] a_mac_reg = 48'd0;
reg [31:0] a_ip_reg = 32'd0;
reg [15:0] a_port_reg = 16'd0;
reg a_ack_valid_reg = 1'b0;
reg a_is_req_reg = 1'b0;
reg [2:0] a_req_reg = 3'd0;
reg a_idx_ok_reg = 1'b0;
reg [QPW-1:0] a_idx_reg = {QPW{1'b0}};
reg a_pad_ok_reg = 1'b0;
reg [23:0] a_rem_qpn_reg = 24'd0;
reg [23:0] a_rem_psn_reg = 24'd0;
reg [31:0] a_rem_rkey_reg = 32'd0;
reg [63:0] a_rem_base_reg = 64'd0;
reg [31:0] a_rem_ip_reg = 32'd0;
reg a_txm_valid_reg = 1'b0;
reg a_txm_start_reg = 1'b0;
reg a_txm_imm_reg = 1'b0;
reg a_txm_type_reg = 1'b0;
reg [31:0] a_dma_len_reg = 32'd0;
reg [31:0] a_n_xfers_reg = 32'd0;
reg [31:0] a_freq_reg = 32'd0;

assign s_cm_ready = !a_valid_reg;

wire a_take = s_cm_valid && !a_valid_reg;

// ---------------------------------------------------------------------------
// Decide

reg b_valid_reg = 1'b0;
reg m_txmeta_valid_reg = 1'b0;

// a txmeta start waits until the descriptor slot is free
wire a_would_start = !a_is_req_reg && a_txm_valid_reg && a_txm_start_reg;
wire dec_fire = a_valid_reg && !b_valid_reg && !(a_would_start && m_txmeta_valid_reg);

reg [2:0] cur_state;
reg [23:0] cur_rem_qpn, cur_rem_psn, cur_loc_psn;
reg [31:0] cur_rem_rkey, cur_rem_ip;
reg [63:0] cur_rem_base;
reg free_any;
reg [QPW-1:0] free_idx;
integer i;

// the named QP's record, and the lowest free QP
always @* begin
    cur_state = ST_RESET;
    cur_rem_qpn = 24'd0;
    cur_rem_psn = 24'd0;
    cur_loc_psn = 24'd0;
    cur_rem_rkey = 32'd0;
    cur_rem_ip = 32'd0;
    cur_rem_base = 64'd0;
    for (i = 0; i < N_QP; i = i + 1) begin
        if (a_idx_reg == i[QPW-1:0]) begin
            cur_state = qp_state_reg[3*i +: 3];
            cur_rem_qpn = qp_rem_qpn_reg[24*i +: 24];
            cur_rem_psn = qp_rem_psn_reg[24*i +: 24];
            cur_loc_psn = qp_loc_psn_reg[24*i +: 24];
            cur_rem_rkey = qp_rem_rkey_reg[32*i +: 32];
            cur_rem_ip = qp_rem_ip_reg[32*i +: 32];
            cur_rem_base = qp_rem_base_addr_reg[64*i +: 64];
        end
    end

    free_any = 1'b0;
    free_idx = {QPW{1'b0}};
    for (i = N_QP - 1; i >= 0; i = i - 1) begin
        if (qp_state_reg[3*i +: 3] == ST_RESET) begin
            free_any = 1'b1;
            free_idx = i[QPW-1:0];
        end
    end
end

wire cur_alloc = a_idx_ok_reg && (cur_state != ST_RESET);

reg dec_reply;
reg [2:0] dec_ack;
reg dec_has_qp;
reg dec_open, dec_info, dec_rts, dec_close, dec_start;

always @* begin
    dec_reply = !a_ack_valid_reg;
    dec_ack = ACK_NAK;
    dec_has_qp = cur_alloc;
    dec_open = 1'b0;
    dec_info = 1'b0;
    dec_rts = 1'b0;
    dec_close = 1'b0;
    dec_start = 1'b0;

    if (a_ack_valid_reg) begin
        // a reply: no answer
        dec_reply = 1'b0;
    end else if (a_is_req_reg && a_txm_valid_reg) begin
        // a request and a txmeta command in one frame: refused
        dec_ack = ACK_NAK;
    end else if (a_is_req_reg) begin
        case (a_req_reg)
            REQ_OPEN_QP: begin
                dec_has_qp = free_any;
                if (free_any) begin
                    dec_ack = ACK_ACK;
                    dec_open = 1'b1;
                end else begin
                    dec_ack = ACK_NO_QP;
                end
            end
            REQ_SEND_QP_INFO: begin
                if (cur_alloc && cur_state == ST_INIT && a_pad_ok_reg) begin
                    dec_ack = ACK_ACK;
                    dec_info = 1'b1;
                end
            end
            REQ_MODIFY_QP_RTS: begin
                if (cur_alloc && cur_state == ST_RTR) begin
                    dec_ack = ACK_ACK;
                    dec_rts = 1'b1;
                end
            end
            default: begin
                // REQ_CLOSE_QP
                if (cur_alloc) begin
                    dec_ack = ACK_ACK;
                    dec_close = 1'b1;
                end
            end
        endcase
    end else if (a_txm_valid_reg) begin
        if (cur_alloc && cur_state == ST_RTS) begin
            dec_ack = ACK_ACK;
            dec_start = a_txm_start_reg;
        end
    end
end

// next QP states: the CM's transition, then qp_error
always @* begin
    qp_state_next = qp_state_reg;
    if (dec_fire) begin
        if (dec_open) begin
            qp_state_next[3*free_idx +: 3] = ST_INIT;
        end
        if (dec_info) begin
            qp_state_next[3*a_idx_reg +: 3] = ST_RTR;
        end
        if (dec_rts) begin
            qp_state_next[3*a_idx_reg +: 3] = ST_RTS;
        end
        if (dec_close) begin
            qp_state_next[3*a_idx_reg +: 3] = ST_RESET;
        end
    end
    for (i = 0; i < N_QP; i = i + 1) begin
        if (qp_error[i] && qp_state_reg[3*i +: 3] != ST_RESET &&
            qp_state_next[3*i +: 3] != ST_RESET) begin
            qp_state_next[3*i +: 3] = ST_ERROR;
        end
    end
end

wire [2:0] cfg_pmtu_eff = (cfg_pmtu_code > 3'd4) ? 3'd4 : cfg_pmtu_code;
wire ctrl_ok = ({1'b0, ctrl_qp} < N_QP_IDX) && (ctrl_pmtu_code <= 3'd4);

// ---------------------------------------------------------------------------
// Stage B: the reply's fields

reg [2:0]  b_ack_reg = 3'd0;
reg [2:0]  b_req_reg = 3'd0;
reg [47:0] b_mac_reg = 48'd0;
reg [31:0] b_ip_reg = 32'd0;
reg [15:0] b_port_reg = 16'd0;
reg [23:0] b_loc_qpn_reg = 24'd0;
reg [23:0] b_loc_psn_reg = 24'd0;
reg [23:0] b_rem_qpn_reg = 24'd0;
reg [23:0] b_rem_psn_reg = 24'd0;
reg [31:0] b_rem_rkey_reg = 32'd0;
reg [63:0] b_rem_base_reg = 64'd0;
reg [31:0] b_rem_ip_reg = 32'd0;

wire [QPW-1:0] dec_qp = dec_open ? free_idx : a_idx_reg;
wire [23:0] dec_qp_24 = {{(24-QPW){1'b0}}, dec_qp};

// ---------------------------------------------------------------------------
// Reply frame: built from B into the output shift register

reg out_active_reg = 1'b0;
reg out_last_reg = 1'b0;
reg [BW-1:0] out_left_reg = {BW{1'b0}};
reg [FRAME_WIDTH-1:0] out_data_reg = {FRAME_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] out_keep_reg = {KEEP_WIDTH{1'b0}};
reg [15:0] ip_id_reg = 16'd0;

wire out_fire = out_active_reg && m_axis_tready;
wire out_load = b_valid_reg && (!out_active_reg || (out_fire && out_last_reg));

assign m_axis_tdata = out_data_reg[DATA_WIDTH-1:0];
assign m_axis_tkeep = out_keep_reg;
assign m_axis_tvalid = out_active_reg;
assign m_axis_tlast = out_last_reg;
assign m_axis_tuser = 1'b0;

// Ethernet II / IPv4 / UDP: bytes 0-41
wire [8*42-1:0] eth_ip_udp;

eth_ipv4_udp_header eth_ipv4_udp_header_inst (
    .dst_mac(b_mac_reg),
    .src_mac(cfg_mac),
    .src_ip(cfg_ip),
    .dst_ip(b_ip_reg),
    .ip_id(ip_id_reg),
    .tos(8'd0),
    .ip_total_length(IP_TOTAL_LENGTH),
    .udp_src_port(CM_REPLY_PORT),
    .udp_dst_port(b_port_reg),
    .udp_length(UDP_LENGTH),
    .header(eth_ip_udp)
);

reg [8*FRAME_BYTES-1:0] reply_bytes;
reg [7:0] reply_flags;

always @* begin
    reply_flags = {b_ack_reg, 1'b1, b_req_reg, 1'b1};

    // byte n in reply_bytes[8*n +: 8]
    reply_bytes = {8*FRAME_BYTES{1'b0}};
    reply_bytes[0 +: 8*42] = eth_ip_udp;
    // CM payload: payload byte n is frame byte 42 + n
    reply_bytes[8*42 +: 8] = reply_flags;
    for (i = 0; i < 3; i = i + 1) begin
        reply_bytes[8*(42+2+i) +: 8] = b_loc_qpn_reg[8*(2-i) +: 8];
        reply_bytes[8*(42+6+i) +: 8] = b_loc_psn_reg[8*(2-i) +: 8];
        reply_bytes[8*(42+26+i) +: 8] = b_rem_qpn_reg[8*(2-i) +: 8];
        reply_bytes[8*(42+30+i) +: 8] = b_rem_psn_reg[8*(2-i) +: 8];
    end
    for (i = 0; i < 4; i = i + 1) begin
        reply_bytes[8*(42+9+i) +: 8] = cfg_rkey[8*(3-i) +: 8];
        reply_bytes[8*(42+21+i) +: 8] = cfg_ip[8*(3-i) +: 8];
        reply_bytes[8*(42+33+i) +: 8] = b_rem_rkey_reg[8*(3-i) +: 8];
        reply_bytes[8*(42+45+i) +: 8] = b_rem_ip_reg[8*(3-i) +: 8];
    end
    for (i = 0; i < 8; i = i + 1) begin
        reply_bytes[8*(42+13+i) +: 8] = cfg_base_addr[8*(7-i) +: 8];
        reply_bytes[8*(42+37+i) +: 8] = b_rem_base_reg[8*(7-i) +: 8];
    end
end

// ---------------------------------------------------------------------------
// Transfer start descriptor

reg [QPW-1:0] m_txmeta_qp_reg = {QPW{1'b0}};
reg m_txmeta_is_immediate_reg = 1'b0;
reg m_txmeta_tx_type_reg = 1'b0;
reg [31:0] m_txmeta_dma_length_reg = 32'd0;
reg [31:0] m_txmeta_n_transfers_reg = 32'd0;
reg [31:0] m_txmeta_frequency_reg = 32'd0;

assign m_txmeta_valid = m_txmeta_valid_reg;
assign m_txmeta_qp = m_txmeta_qp_reg;
assign m_txmeta_is_immediate = m_txmeta_is_immediate_reg;
assign m_txmeta_tx_type = m_txmeta_tx_type_reg;
assign m_txmeta_dma_length = m_txmeta_dma_length_reg;
assign m_txmeta_n_transfers = m_txmeta_n_transfers_reg;
assign m_txmeta_frequency = m_txmeta_frequency_reg;

// ---------------------------------------------------------------------------
// Counters

reg [31:0] cm_frames_reg = 32'd0;
reg [31:0] cm_acks_reg = 32'd0;
reg [31:0] cm_naks_reg = 32'd0;
reg [31:0] cm_no_qp_reg = 32'd0;
reg ctrl_refused_reg = 1'b0;

assign cm_frames = cm_frames_reg;
assign cm_acks = cm_acks_reg;
assign cm_naks = cm_naks_reg;
assign cm_no_qp = cm_no_qp_reg;
assign ctrl_refused = ctrl_refused_reg;

// ---------------------------------------------------------------------------
// Registers

always @(posedge clk) begin
    // stage A
    if (a_take) begin
        a_valid_reg <= 1'b1;
        a_mac_reg <= s_cm_src_mac;
        a_ip_reg <= s_cm_src_ip;
        a_port_reg <= (in_lport != 16'd0) ? in_lport : s_cm_src_port;
        a_ack_valid_reg <= in_flags[4];
        a_is_req_reg <= in_is_req;
        a_req_reg <= in_is_req ? in_flags[3:1] : REQ_NULL;
        a_idx_ok_reg <= in_idx_ok;
        a_idx_reg <= in_qpn_diff[QPW-1:0];
        a_pad_ok_reg <= (in_qpn_pad == 8'd0) && (in_psn_pad == 8'd0);
        a_rem_qpn_reg <= in_rem_qpn;
        a_rem_psn_reg <= in_rem_psn;
        a_rem_rkey_reg <= in_rem_rkey;
        a_rem_base_reg <= in_rem_base;
        a_rem_ip_reg <= in_rem_ip;
        a_txm_valid_reg <= in_txm_flags[0];
        a_txm_start_reg <= in_txm_flags[1];
        a_txm_imm_reg <= in_txm_flags[2];
        a_txm_type_reg <= in_txm_flags[3];
        a_dma_len_reg <= in_dma_len;
        a_n_xfers_reg <= in_n_xfers;
        a_freq_reg <= in_freq;
        cm_frames_reg <= cm_frames_reg + 32'd1;
    end else if (dec_fire) begin
        a_valid_reg <= 1'b0;
    end

    // decide: B, counters, txmeta
    if (dec_fire && dec_reply) begin
        b_valid_reg <= 1'b1;
        b_ack_reg <= dec_ack;
        b_req_reg <= a_req_reg;
        b_mac_reg <= a_mac_reg;
        b_ip_reg <= a_ip_reg;
        b_port_reg <= a_port_reg;
        b_loc_qpn_reg <= dec_has_qp ? QPN_BASE_24 + dec_qp_24 : 24'd0;
        b_loc_psn_reg <= !dec_has_qp ? 24'd0 : dec_open ? psn_of(free_idx) : cur_loc_psn;
        b_rem_qpn_reg <= (!dec_has_qp || dec_open) ? 24'd0 : dec_info ? a_rem_qpn_reg : cur_rem_qpn;
        b_rem_psn_reg <= (!dec_has_qp || dec_open) ? 24'd0 : dec_info ? a_rem_psn_reg : cur_rem_psn;
        b_rem_rkey_reg <= (!dec_has_qp || dec_open) ? 32'd0 : dec_info ? a_rem_rkey_reg : cur_rem_rkey;
        b_rem_base_reg <= (!dec_has_qp || dec_open) ? 64'd0 : dec_info ? a_rem_base_reg : cur_rem_base;
        b_rem_ip_reg <= (!dec_has_qp || dec_open) ? 32'd0 : dec_info ? a_rem_ip_reg : cur_rem_ip;
        if (dec_ack == ACK_ACK) begin
            cm_acks_reg <= cm_acks_reg + 32'd1;
        end
        if (dec_ack == ACK_NAK) begin
            cm_naks_reg <= cm_naks_reg + 32'd1;
        end
        if (dec_ack == ACK_NO_QP) begin
            cm_no_qp_reg <= cm_no_qp_reg + 32'd1;
        end
    end else if (out_load) begin
        b_valid_reg <= 1'b0;
    end

    if (dec_fire && dec_start) begin
        m_txmeta_valid_reg <= 1'b1;
        m_txmeta_qp_reg <= a_idx_reg;
        m_txmeta_is_immediate_reg <= a_txm_imm_reg;
        m_txmeta_tx_type_reg <= a_txm_type_reg;
        m_txmeta_dma_length_reg <= a_dma_len_reg;
        m_txmeta_n_transfers_reg <= a_n_xfers_reg;
        m_txmeta_frequency_reg <= a_freq_reg;
    end else if (m_txmeta_ready) begin
        m_txmeta_valid_reg <= 1'b0;
    end

    // QP records
    qp_state_reg <= qp_state_next;
    for (i = 0; i < N_QP; i = i + 1) begin
        if (dec_fire && dec_open && free_idx == i[QPW-1:0]) begin
            qp_loc_psn_reg[24*i +: 24] <= psn_of(free_idx);
            qp_pmtu_code_reg[3*i +: 3] <= cfg_pmtu_eff;
        end
        if (dec_fire && dec_info && a_idx_reg == i[QPW-1:0]) begin
            qp_rem_qpn_reg[24*i +: 24] <= a_rem_qpn_reg;
            qp_rem_psn_reg[24*i +: 24] <= a_rem_psn_reg;
            qp_rem_rkey_reg[32*i +: 32] <= a_rem_rkey_reg;
            qp_rem_base_addr_reg[64*i +: 64] <= a_rem_base_reg;
            qp_rem_ip_reg[32*i +: 32] <= a_rem_ip_reg;
            qp_rem_mac_reg[48*i +: 48] <= a_mac_reg;
        end
        if (dec_fire && dec_close && a_idx_reg == i[QPW-1:0]) begin
            qp_rem_qpn_reg[24*i +: 24] <= 24'd0;
            qp_rem_psn_reg[24*i +: 24] <= 24'd0;
            qp_rem_rkey_reg[32*i +: 32] <= 32'd0;
            qp_rem_base_addr_reg[64*i +: 64] <= 64'd0;
            qp_rem_ip_reg[32*i +: 32] <= 32'd0;
            qp_rem_mac_reg[48*i +: 48] <= 48'd0;
            qp_loc_psn_reg[24*i +: 24] <= 24'd0;
        end
        if (ctrl_valid && ctrl_ok && ctrl_qp == i[QPW-1:0]) begin
            qp_pmtu_code_reg[3*i +: 3] <= ctrl_pmtu_code;
        end
    end
    ctrl_refused_reg <= ctrl_valid && !ctrl_ok;

    // output
    if (out_load) begin
        out_active_reg <= 1'b1;
        out_data_reg <= {{(FRAME_WIDTH-8*FRAME_BYTES){1'b0}}, reply_bytes};
        out_left_reg <= BEATS_M1;
        out_last_reg <= (BEATS == 1);
        out_keep_reg <= (BEATS == 1) ? LAST_KEEP : {KEEP_WIDTH{1'b1}};
        ip_id_reg <= ip_id_reg + 16'd1;
    end else if (out_fire) begin
        out_data_reg <= out_data_reg >> DATA_WIDTH;
        out_left_reg <= out_left_reg - 1'b1;
        out_last_reg <= (out_left_reg == 1);
        out_keep_reg <= (out_left_reg == 1) ? LAST_KEEP : {KEEP_WIDTH{1'b1}};
        if (out_last_reg) begin
            out_active_reg <= 1'b0;
        end
    end

    if (rst) begin
        a_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        out_active_reg <= 1'b0;
        out_last_reg <= 1'b0;
        m_txmeta_valid_reg <= 1'b0;
        ctrl_refused_reg <= 1'b0;
        ip_id_reg <= 16'd0;
        cm_frames_reg <= 32'd0;
        cm_acks_reg <= 32'd0;
        cm_naks_reg <= 32'd0;
        cm_no_qp_reg <= 32'd0;
        qp_state_reg <= {3*N_QP{1'b0}};
        qp_rem_qpn_reg <= {24*N_QP{1'b0}};
        qp_rem_psn_reg <= {24*N_QP{1'b0}};
        qp_rem_rkey_reg <= {32*N_QP{1'b0}};
        qp_rem_base_addr_reg <= {64*N_QP{1'b0}};
        qp_rem_ip_reg <= {32*N_QP{1'b0}};
        qp_rem_mac_reg <= {48*N_QP{1'b0}};
        qp_loc_psn_reg <= {24*N_QP{1'b0}};
        qp_pmtu_code_reg <= {3*N_QP{1'b0}};
    end
end

endmodule

`default_nettype wire
`resetall
