/*
 * roce_endpoint: the RoCEv2 requester endpoint (top).
 *
 * RX:  s_axis (MAC, no FCS) -> roce_icrc_check -> roce_rx_parse ->
 *        ARP descriptors  -> eth_arp   (answers ARP for cfg_ip)
 *        CM descriptors   -> roce_cm   (cm-frame.md; QP states, replies, txmeta)
 *        ACK/NAK/RNR      -> roce_req
 *        CNP              counted only (stat_rx_cnp)
 * TX:  roce_req descriptors -> sync_fifo (DESC_FIFO_DEPTH descriptors, see
 *        below) -> roce_tx_frame (payload from the application memory
 *        response, s_mem_*) -> roce_icrc_insert -> axis_arb_mux
 *      eth_arp frames, roce_cm replies                 -> axis_arb_mux
 *      axis_arb_mux (frame-atomic, fixed priority ARP > CM > RoCE) -> m_axis
 *
 * Work requests: the native WR port (s_wr_*) and the traffic generator
 * (roce_txgen, started by roce_cm's txmeta) are merged into roce_req's WR
 * port, round robin between the two when both are valid (the one not served
 * last goes first). Completions of both come out of m_cpl_* (the generator's
 * WRs have wr_id bit 63 set, see roce_txgen; native wr_ids should keep bit 63
 * clear to be told apart).
 *
 * The peer's MAC address is the one roce_cm learns from the source MAC of
 * the SEND_QP_INFO frame (qp_rem_mac); eth_arp's resolver is not used (its
 * resolve port is tied off), eth_arp only answers ARP requests for cfg_ip.
 *
 * Application memory: one read request (m_mem_rd_addr / m_mem_rd_len, 1..8192
 * bytes) per packet with payload, issued by roce_req in packet order; the
 * response is one AXI-Stream packet per request, in request order, len bytes
 * from lane 0 of its first beat with tlast on its last beat (tkeep contiguous,
 * tuser on a beat marks the data bad: the frame is then sent with tuser set,
 * i.e. dropped by the MAC). Retransmissions read the memory again. Reads run
 * ahead of the frames (through the descriptor FIFO, below): at most
 * DESC_FIFO_DEPTH + 5 are outstanding (about DESC_FIFO_BEATS cycles of
 * frames and 5 PMTUs more); the memory should take that many and hold their
 * responses while s_mem_axis_tready is low, as an AXI slave does.
 *
 * QP i has QPN QPN_BASE + i. Its PMTU is cfg_pmtu_code (256 << code, code
 * 0..4) when it is opened (OPEN_QP); cfg_timeout / cfg_retry_cnt /
 * cfg_rnr_retry (QP i in bits [5i +: 5] / [3i +: 3] / [3i +: 3]) are read live
 * by the requester. cfg_* should be stable while QPs are in use.
 *
 * Counters: 32 bits, wrapping, cleared by rst.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_endpoint #
(
    // Width of the MAC streams in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    // Queue pairs; QP i has QPN QPN_BASE + i
    parameter N_QP = 4,
    parameter QPN_BASE = 256,
    // Work requests queued per QP (a power of 2)
    parameter WQ_DEPTH = 64,
    // Most PSNs outstanding per QP
    parameter WINDOW = 1024,
    // Clock frequency (the requester's timers count real time from it)
    parameter CLK_FREQ_HZ = 322266000,
    // ARP cache entries (a power of 2)
    parameter ARP_CACHE_SIZE = 4,
    // Packet descriptors queued between the requester and the frame builder
    // (a power of 2, at least 2; one more waits in the FIFO's output
    // register): how far the memory reads run ahead of the frames
    parameter DESC_FIFO_DEPTH = 16,
    // ... and the FIFO takes no descriptor while the frames of those in it
    // would take DESC_FIFO_BEATS cycles or more to send (counted as
    // ceil((payload + 64) / KEEP_WIDTH) each; 0: no limit). About the memory
    // read latency in cycles is enough; more only lengthens what a NAK finds
    // already committed. 128: 2 frames of 4 KB at 512 bits.
    parameter DESC_FIFO_BEATS = 128
)
(
    input  wire                       clk,
    input  wire                       rst,

    /*
     * MAC TX (frames without FCS)
     */
    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,
    output wire                       m_axis_tuser,

    /*
     * MAC RX (frames without FCS; tuser on the last beat: bad frame)
     */
    input  wire [DATA_WIDTH-1:0]      s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_axis_tkeep,
    input  wire                       s_axis_tvalid,
    output wire                       s_axis_tready,
    input  wire                       s_axis_tlast,
    input  wire                       s_axis_tuser,

    /*
     * Configuration
     */
    input  wire [47:0]                cfg_mac,
    input  wire [31:0]                cfg_ip,
    input  wire [31:0]                cfg_rkey,
    input  wire [63:0]                cfg_base_addr,
    input  wire [23:0]                cfg_psn,
    input  wire [2:0]                 cfg_pmtu_code,
    input  wire [5*N_QP-1:0]          cfg_timeout,
    input  wire [3*N_QP-1:0]          cfg_retry_cnt,
    input  wire [3*N_QP-1:0]          cfg_rnr_retry,

    /*
     * Native work requests
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
     * Completions (status: 0 success, 1 retry exceeded, 2 RNR retry exceeded,
     * 3 remote invalid request, 4 remote access error, 5 remote operational
     * error, 6 flushed)
     */
    output wire                       m_cpl_valid,
    input  wire                       m_cpl_ready,
    output wire [$clog2(N_QP)-1:0]    m_cpl_qp,
    output wire [63:0]                m_cpl_wr_id,
    output wire [2:0]                 m_cpl_status,

    /*
     * Application memory read port
     */
    output wire                       m_mem_rd_valid,
    input  wire                       m_mem_rd_ready,
    output wire [63:0]                m_mem_rd_addr,
    output wire [12:0]                m_mem_rd_len,

    input  wire [DATA_WIDTH-1:0]      s_mem_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_mem_axis_tkeep,
    input  wire                       s_mem_axis_tvalid,
    output wire                       s_mem_axis_tready,
    input  wire                       s_mem_axis_tlast,
    input  wire                       s_mem_axis_tuser,

    /*
     * Status
     */
    output wire [3*N_QP-1:0]          qp_state,
    output wire [N_QP-1:0]            txgen_busy,

    /*
     * Counters
     */
    output wire [31:0]                stat_tx_pkts,          // RoCE request packets sent (incl. retransmissions)
    output wire [31:0]                stat_retransmissions,
    output wire [31:0]                stat_timeouts,
    output wire [31:0]                stat_naks,
    output wire [31:0]                stat_rnr_naks,
    output wire [31:0]                stat_rx_frames,
    output wire [31:0]                stat_rx_ack,
    output wire [31:0]                stat_rx_cm,
    output wire [31:0]                stat_rx_arp,
    output wire [31:0]                stat_rx_cnp,
    output wire [31:0]                stat_rx_drop_bad_icrc,
    output wire [31:0]                stat_rx_drop_not_for_us,
    output wire [31:0]                stat_rx_drop_malformed,
    output wire [31:0]                stat_rx_drop_unsupported,
    output wire [31:0]                stat_cm_acks,
    output wire [31:0]                stat_cm_naks,
    output wire [31:0]                stat_cm_no_qp,
    output wire [31:0]                stat_arp_replies_out
);

localparam QPW = $clog2(N_QP);

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
        $error("Error: N_QP must be at least 4 (roce_cm) (instance %m)");
        $finish;
    end
    if (DESC_FIFO_DEPTH < 2 || (DESC_FIFO_DEPTH & (DESC_FIFO_DEPTH - 1)) != 0) begin
        $error("Error: DESC_FIFO_DEPTH must be a power of 2, at least 2 (instance %m)");
        $finish;
    end
    if (DESC_FIFO_BEATS < 0) begin
        $error("Error: DESC_FIFO_BEATS must be 0 (no limit) or more (instance %m)");
        $finish;
    end
end

// ---------------------------------------------------------------------------
// RX: ICRC check

wire [DATA_WIDTH-1:0]  rx_checked_tdata;
wire [KEEP_WIDTH-1:0]  rx_checked_tkeep;
wire                   rx_checked_tvalid;
wire                   rx_checked_tready;
wire                   rx_checked_tlast;
wire                   rx_checked_tuser;

roce_icrc_check #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_check_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .m_axis_tdata(rx_checked_tdata),
    .m_axis_tkeep(rx_checked_tkeep),
    .m_axis_tvalid(rx_checked_tvalid),
    .m_axis_tready(rx_checked_tready),
    .m_axis_tlast(rx_checked_tlast),
    .m_axis_tuser(rx_checked_tuser)
);

// ---------------------------------------------------------------------------
// RX: classifier

wire          arp_valid;
wire          arp_ready;
wire [15:0]   arp_oper;
wire [47:0]   arp_sha;
wire [31:0]   arp_spa;
wire [47:0]   arp_tha;
wire [31:0]   arp_tpa;

wire          cm_valid;
wire          cm_ready;
wire [47:0]   cm_src_mac;
wire [31:0]   cm_src_ip;
wire [15:0]   cm_src_port;
wire [511:0]  cm_payload;

wire          ack_valid;
wire          ack_ready;
wire [23:0]   ack_dest_qp;
wire [23:0]   ack_psn;
wire [7:0]    ack_syndrome;
wire [23:0]   ack_msn;

// outputs of the submodules this top does not use
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0]   ack_src_ip_unused;
wire          cnp_pulse_unused;
wire [23:0]   cnp_qp_unused;
wire [24*N_QP-1:0] qp_rem_psn_unused;
wire          ctrl_refused_unused;
wire          resolve_ready_unused;
wire          resolve_valid_unused;
wire [31:0]   resolve_ip_unused;
wire [47:0]   resolve_mac_unused;
wire          resolve_ok_unused;
wire [31:0]   arp_requests_in_unused;
wire [31:0]   arp_requests_out_unused;
wire [31:0]   resolve_okcnt_unused;
wire [31:0]   resolve_fail_unused;
wire [31:0]   cm_frames_unused;
/* verilator lint_on UNUSEDSIGNAL */

roce_rx_parse #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
rx_parse_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip(cfg_ip),
    .s_axis_tdata(rx_checked_tdata),
    .s_axis_tkeep(rx_checked_tkeep),
    .s_axis_tvalid(rx_checked_tvalid),
    .s_axis_tready(rx_checked_tready),
    .s_axis_tlast(rx_checked_tlast),
    .s_axis_tuser(rx_checked_tuser),
    .m_arp_valid(arp_valid),
    .m_arp_ready(arp_ready),
    .m_arp_oper(arp_oper),
    .m_arp_sha(arp_sha),
    .m_arp_spa(arp_spa),
    .m_arp_tha(arp_tha),
    .m_arp_tpa(arp_tpa),
    .m_cm_valid(cm_valid),
    .m_cm_ready(cm_ready),
    .m_cm_src_mac(cm_src_mac),
    .m_cm_src_ip(cm_src_ip),
    .m_cm_src_port(cm_src_port),
    .m_cm_payload(cm_payload),
    .m_ack_valid(ack_valid),
    .m_ack_ready(ack_ready),
    .m_ack_src_ip(ack_src_ip_unused),
    .m_ack_dest_qp(ack_dest_qp),
    .m_ack_psn(ack_psn),
    .m_ack_syndrome(ack_syndrome),
    .m_ack_msn(ack_msn),
    .cnp_pulse(cnp_pulse_unused),
    .cnp_qp(cnp_qp_unused),
    .rx_frames(stat_rx_frames),
    .rx_arp(stat_rx_arp),
    .rx_cm(stat_rx_cm),
    .rx_ack(stat_rx_ack),
    .rx_cnp(stat_rx_cnp),
    .drop_bad_icrc(stat_rx_drop_bad_icrc),
    .drop_not_for_us(stat_rx_drop_not_for_us),
    .drop_malformed(stat_rx_drop_malformed),
    .drop_unsupported(stat_rx_drop_unsupported)
);

// ---------------------------------------------------------------------------
// ARP

wire [DATA_WIDTH-1:0]  arp_tx_tdata;
wire [KEEP_WIDTH-1:0]  arp_tx_tkeep;
wire                   arp_tx_tvalid;
wire                   arp_tx_tready;
wire                   arp_tx_tlast;
wire                   arp_tx_tuser;

eth_arp #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .CACHE_SIZE(ARP_CACHE_SIZE),
    .REQUEST_RETRY_CYCLES(CLK_FREQ_HZ / 1000),
    .REQUEST_RETRIES(4)
)
arp_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip(cfg_ip),
    .s_arp_valid(arp_valid),
    .s_arp_ready(arp_ready),
    .s_arp_oper(arp_oper),
    .s_arp_sha(arp_sha),
    .s_arp_spa(arp_spa),
    .s_arp_tha(arp_tha),
    .s_arp_tpa(arp_tpa),
    .s_resolve_valid(1'b0),
    .s_resolve_ready(resolve_ready_unused),
    .s_resolve_ip(32'd0),
    .m_resolve_valid(resolve_valid_unused),
    .m_resolve_ready(1'b1),
    .m_resolve_ip(resolve_ip_unused),
    .m_resolve_mac(resolve_mac_unused),
    .m_resolve_ok(resolve_ok_unused),
    .m_axis_tdata(arp_tx_tdata),
    .m_axis_tkeep(arp_tx_tkeep),
    .m_axis_tvalid(arp_tx_tvalid),
    .m_axis_tready(arp_tx_tready),
    .m_axis_tlast(arp_tx_tlast),
    .m_axis_tuser(arp_tx_tuser),
    .arp_requests_in(arp_requests_in_unused),
    .arp_replies_out(stat_arp_replies_out),
    .arp_requests_out(arp_requests_out_unused),
    .resolve_ok(resolve_okcnt_unused),
    .resolve_fail(resolve_fail_unused)
);

// ---------------------------------------------------------------------------
// Connection manager

wire [DATA_WIDTH-1:0]  cm_tx_tdata;
wire [KEEP_WIDTH-1:0]  cm_tx_tkeep;
wire                   cm_tx_tvalid;
wire                   cm_tx_tready;
wire                   cm_tx_tlast;
wire                   cm_tx_tuser;

wire [N_QP-1:0]        qp_error;
wire [24*N_QP-1:0]     qp_rem_qpn;
wire [32*N_QP-1:0]     qp_rem_rkey;
wire [64*N_QP-1:0]     qp_rem_base_addr;
wire [32*N_QP-1:0]     qp_rem_ip;
wire [48*N_QP-1:0]     qp_rem_mac;
wire [24*N_QP-1:0]     qp_loc_psn;
wire [3*N_QP-1:0]      qp_pmtu_code;

wire                   txmeta_valid;
wire                   txmeta_ready;
wire [QPW-1:0]         txmeta_qp;
wire                   txmeta_is_immediate;
wire                   txmeta_tx_type;
wire [31:0]            txmeta_dma_length;
wire [31:0]            txmeta_n_transfers;
wire [31:0]            txmeta_frequency;

roce_cm #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .N_QP(N_QP),
    .QPN_BASE(QPN_BASE)
)
cm_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip(cfg_ip),
    .cfg_rkey(cfg_rkey),
    .cfg_base_addr(cfg_base_addr),
    .cfg_psn(cfg_psn),
    .cfg_pmtu_code(cfg_pmtu_code),
    .s_cm_valid(cm_valid),
    .s_cm_ready(cm_ready),
    .s_cm_src_mac(cm_src_mac),
    .s_cm_src_ip(cm_src_ip),
    .s_cm_src_port(cm_src_port),
    .s_cm_payload(cm_payload),
    .qp_error(qp_error),
    .ctrl_valid(1'b0),
    .ctrl_qp({QPW{1'b0}}),
    .ctrl_pmtu_code(3'd0),
    .ctrl_refused(ctrl_refused_unused),
    .m_axis_tdata(cm_tx_tdata),
    .m_axis_tkeep(cm_tx_tkeep),
    .m_axis_tvalid(cm_tx_tvalid),
    .m_axis_tready(cm_tx_tready),
    .m_axis_tlast(cm_tx_tlast),
    .m_axis_tuser(cm_tx_tuser),
    .qp_state(qp_state),
    .qp_rem_qpn(qp_rem_qpn),
    .qp_rem_psn(qp_rem_psn_unused),
    .qp_rem_rkey(qp_rem_rkey),
    .qp_rem_base_addr(qp_rem_base_addr),
    .qp_rem_ip(qp_rem_ip),
    .qp_rem_mac(qp_rem_mac),
    .qp_loc_psn(qp_loc_psn),
    .qp_pmtu_code(qp_pmtu_code),
    .m_txmeta_valid(txmeta_valid),
    .m_txmeta_ready(txmeta_ready),
    .m_txmeta_qp(txmeta_qp),
    .m_txmeta_is_immediate(txmeta_is_immediate),
    .m_txmeta_tx_type(txmeta_tx_type),
    .m_txmeta_dma_length(txmeta_dma_length),
    .m_txmeta_n_transfers(txmeta_n_transfers),
    .m_txmeta_frequency(txmeta_frequency),
    .cm_frames(cm_frames_unused),
    .cm_acks(stat_cm_acks),
    .cm_naks(stat_cm_naks),
    .cm_no_qp(stat_cm_no_qp)
);

// ---------------------------------------------------------------------------
// Traffic generator and the WR merge

wire                   gen_valid;
wire                   gen_ready;
wire [QPW-1:0]         gen_qp;
wire [1:0]             gen_opcode;
wire [63:0]            gen_local_addr;
wire [31:0]            gen_length;
wire [63:0]            gen_remote_va;
wire [31:0]            gen_rkey;
wire [31:0]            gen_imm;
wire [63:0]            gen_wr_id;

roce_txgen #(
    .N_QP(N_QP)
)
txgen_inst (
    .clk(clk),
    .rst(rst),
    .cfg_base_addr(cfg_base_addr),
    .qp_state(qp_state),
    .qp_rem_rkey(qp_rem_rkey),
    .qp_rem_base_addr(qp_rem_base_addr),
    .s_txmeta_valid(txmeta_valid),
    .s_txmeta_ready(txmeta_ready),
    .s_txmeta_qp(txmeta_qp),
    .s_txmeta_is_immediate(txmeta_is_immediate),
    .s_txmeta_tx_type(txmeta_tx_type),
    .s_txmeta_dma_length(txmeta_dma_length),
    .s_txmeta_n_transfers(txmeta_n_transfers),
    .s_txmeta_frequency(txmeta_frequency),
    .m_wr_valid(gen_valid),
    .m_wr_ready(gen_ready),
    .m_wr_qp(gen_qp),
    .m_wr_opcode(gen_opcode),
    .m_wr_local_addr(gen_local_addr),
    .m_wr_length(gen_length),
    .m_wr_remote_va(gen_remote_va),
    .m_wr_rkey(gen_rkey),
    .m_wr_imm(gen_imm),
    .m_wr_wr_id(gen_wr_id),
    .busy(txgen_busy)
);

// round robin between the native port and the generator: when both are
// valid, the one not served last wins
reg  wr_last_gen_reg = 1'b0;
wire wr_sel_gen = gen_valid && (!s_wr_valid || !wr_last_gen_reg);
wire req_wr_ready;
wire req_wr_valid = s_wr_valid || gen_valid;

assign s_wr_ready = req_wr_ready && !wr_sel_gen;
assign gen_ready = req_wr_ready && wr_sel_gen;

always @(posedge clk) begin
    if (req_wr_valid && req_wr_ready)
        wr_last_gen_reg <= wr_sel_gen;
    if (rst)
        wr_last_gen_reg <= 1'b0;
end

// ---------------------------------------------------------------------------
// Requester

wire          desc_valid;
wire          desc_ready;
wire [47:0]   desc_dst_mac;
wire [47:0]   desc_src_mac;
wire [31:0]   desc_src_ip;
wire [31:0]   desc_dst_ip;
wire [15:0]   desc_ip_id;
wire [7:0]    desc_tos;
wire [15:0]   desc_udp_sport;
wire [7:0]    desc_opcode;
wire          desc_solicited;
wire          desc_ack_req;
wire [23:0]   desc_dest_qp;
wire [23:0]   desc_psn;
wire [63:0]   desc_reth_va;
wire [31:0]   desc_reth_rkey;
wire [31:0]   desc_reth_len;
wire [31:0]   desc_imm;
wire [12:0]   desc_payload_len;

roce_req #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .N_QP(N_QP),
    .WQ_DEPTH(WQ_DEPTH),
    .WINDOW(WINDOW),
    .QPN_BASE(QPN_BASE),
    .CLK_FREQ_HZ(CLK_FREQ_HZ)
)
req_inst (
    .clk(clk),
    .rst(rst),
    .cfg_mac(cfg_mac),
    .cfg_ip(cfg_ip),
    .qp_state(qp_state),
    .qp_rem_qpn(qp_rem_qpn),
    .qp_rem_ip(qp_rem_ip),
    .qp_rem_mac(qp_rem_mac),
    .qp_loc_psn(qp_loc_psn),
    .qp_pmtu_code(qp_pmtu_code),
    .cfg_timeout(cfg_timeout),
    .cfg_retry_cnt(cfg_retry_cnt),
    .cfg_rnr_retry(cfg_rnr_retry),
    .s_wr_valid(req_wr_valid),
    .s_wr_ready(req_wr_ready),
    .s_wr_qp(wr_sel_gen ? gen_qp : s_wr_qp),
    .s_wr_opcode(wr_sel_gen ? gen_opcode : s_wr_opcode),
    .s_wr_local_addr(wr_sel_gen ? gen_local_addr : s_wr_local_addr),
    .s_wr_length(wr_sel_gen ? gen_length : s_wr_length),
    .s_wr_remote_va(wr_sel_gen ? gen_remote_va : s_wr_remote_va),
    .s_wr_rkey(wr_sel_gen ? gen_rkey : s_wr_rkey),
    .s_wr_imm(wr_sel_gen ? gen_imm : s_wr_imm),
    .s_wr_wr_id(wr_sel_gen ? gen_wr_id : s_wr_wr_id),
    .s_ack_valid(ack_valid),
    .s_ack_ready(ack_ready),
    .s_ack_dest_qp(ack_dest_qp),
    .s_ack_psn(ack_psn),
    .s_ack_syndrome(ack_syndrome),
    .s_ack_msn(ack_msn),
    .m_desc_valid(desc_valid),
    .m_desc_ready(desc_ready),
    .m_desc_dst_mac(desc_dst_mac),
    .m_desc_src_mac(desc_src_mac),
    .m_desc_src_ip(desc_src_ip),
    .m_desc_dst_ip(desc_dst_ip),
    .m_desc_ip_id(desc_ip_id),
    .m_desc_tos(desc_tos),
    .m_desc_udp_sport(desc_udp_sport),
    .m_desc_opcode(desc_opcode),
    .m_desc_solicited(desc_solicited),
    .m_desc_ack_req(desc_ack_req),
    .m_desc_dest_qp(desc_dest_qp),
    .m_desc_psn(desc_psn),
    .m_desc_reth_va(desc_reth_va),
    .m_desc_reth_rkey(desc_reth_rkey),
    .m_desc_reth_len(desc_reth_len),
    .m_desc_imm(desc_imm),
    .m_desc_payload_len(desc_payload_len),
    .m_rd_valid(m_mem_rd_valid),
    .m_rd_ready(m_mem_rd_ready),
    .m_rd_addr(m_mem_rd_addr),
    .m_rd_len(m_mem_rd_len),
    .m_cpl_valid(m_cpl_valid),
    .m_cpl_ready(m_cpl_ready),
    .m_cpl_qp(m_cpl_qp),
    .m_cpl_wr_id(m_cpl_wr_id),
    .m_cpl_status(m_cpl_status),
    .qp_error(qp_error),
    .stat_pkts_sent(stat_tx_pkts),
    .stat_retransmissions(stat_retransmissions),
    .stat_timeouts(stat_timeouts),
    .stat_naks(stat_naks),
    .stat_rnr_naks(stat_rnr_naks)
);

// ---------------------------------------------------------------------------
// TX: descriptor FIFO (sync_fifo). roce_req issues a packet's descriptor and
// its memory read together, and only when both of its output registers are
// free; without the FIFO the next read waited until roce_tx_frame took the
// descriptor, i.e. about until the frame before it was being built, so the
// memory latency was paid per packet. The FIFO takes each descriptor at once,
// so the reads run up to the FIFO's contents ahead of the frames and the
// latency overlaps earlier frames. Only descriptors are queued: the payload is
// still read when roce_req issues the packet and streamed into roce_tx_frame
// (in request order, as the memory answers them), never stored here.
//
// What is in the FIFO is committed: a go-back-N or a fatal NAK takes effect
// after it has gone out (as for the frames already in roce_tx_frame), and the
// requester's counters and ACK timer count a packet when it enters the FIFO.
// So the FIFO also stops taking descriptors while the frames in it would take
// DESC_FIFO_BEATS cycles or more to send: the backlog is bounded in time, at
// any DATA_WIDTH and PMTU (16 frames of 4 KB would be 5 us at 100 Gb/s,
// longer than the round trip in which a requester is expected to stop after
// a fatal NAK; a retransmission queued behind them may be acknowledged by the
// time it goes out), while small packets at 512 bits still queue
// DESC_FIFO_DEPTH deep.
//
// The fields roce_req takes from the configuration or drives constant
// (src_mac = cfg_mac, src_ip = cfg_ip, tos 0, solicited 0) go around the
// FIFO; the other 342 bits are queued.

localparam DESC_WIDTH = 48+32+16+16+8+1+24+24+64+32+32+32+13;

wire                   fifo_desc_valid;
wire                   fifo_desc_ready;
wire [47:0]            fifo_desc_dst_mac;
wire [31:0]            fifo_desc_dst_ip;
wire [15:0]            fifo_desc_ip_id;
wire [15:0]            fifo_desc_udp_sport;
wire [7:0]             fifo_desc_opcode;
wire                   fifo_desc_ack_req;
wire [23:0]            fifo_desc_dest_qp;
wire [23:0]            fifo_desc_psn;
wire [63:0]            fifo_desc_reth_va;
wire [31:0]            fifo_desc_reth_rkey;
wire [31:0]            fifo_desc_reth_len;
wire [31:0]            fifo_desc_imm;
wire [12:0]            fifo_desc_payload_len;

// Division by KEEP_WIDTH without a divider, for any width: a multiply by the
// reciprocal rounded up, then a shift. Exact for every 14-bit dividend x:
// KEEP_RECIP = (2^S + e) / KEEP_WIDTH with 0 <= e < KEEP_WIDTH (S is
// RECIP_SHIFT), so x * KEEP_RECIP / 2^S exceeds x / KEEP_WIDTH by less than
// x / 2^S < 1 / KEEP_WIDTH, as 2^S >= 2^14 * KEEP_WIDTH; that never reaches
// the next whole number. For a power-of-two width KEEP_RECIP is a power of
// two and the multiply a shift. The product is below 2^(S+14): KEEP_RECIP <
// 2^S / 8 + 1.
localparam RECIP_SHIFT = 14 + $clog2(KEEP_WIDTH);
localparam integer KEEP_RECIP = (2**RECIP_SHIFT + KEEP_WIDTH - 1) / KEEP_WIDTH;

// a frame's cost: ceil((payload + 64) / KEEP_WIDTH) beats, about its length
// (the headers are 54..74 bytes, the ICRC 4)
function [13:0] frame_beats(input [12:0] plen);
    reg [13:0] bytes_up;
    // the quotient is the bits from RECIP_SHIFT up; the ones below are the
    // fraction, which rounding up leaves unused
    /* verilator lint_off UNUSEDSIGNAL */
    reg [RECIP_SHIFT+13:0] scaled;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
        bytes_up = {1'b0, plen} + 14'd64 + KEEP_WIDTH[13:0] - 14'd1;
        scaled = {{RECIP_SHIFT{1'b0}}, bytes_up} * {13'd0, KEEP_RECIP[RECIP_SHIFT:0]};
        frame_beats = scaled[RECIP_SHIFT +: 14];
    end
endfunction

// beats of the descriptors in the FIFO (output register included)
reg  [31:0]            desc_fifo_beats_reg = 32'd0;
wire                   desc_fifo_s_ready;
wire                   desc_fifo_room = DESC_FIFO_BEATS == 0 || desc_fifo_beats_reg < DESC_FIFO_BEATS;
wire                   desc_fifo_in = desc_valid && desc_ready;
wire                   desc_fifo_out = fifo_desc_valid && fifo_desc_ready;

assign desc_ready = desc_fifo_s_ready && desc_fifo_room;

always @(posedge clk) begin
    desc_fifo_beats_reg <= desc_fifo_beats_reg
        + (desc_fifo_in ? {18'd0, frame_beats(desc_payload_len)} : 32'd0)
        - (desc_fifo_out ? {18'd0, frame_beats(fifo_desc_payload_len)} : 32'd0);
    if (rst)
        desc_fifo_beats_reg <= 32'd0;
end

sync_fifo #(
    .DATA_WIDTH(DESC_WIDTH),
    .DEPTH(DESC_FIFO_DEPTH)
)
desc_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({
        desc_dst_mac, desc_dst_ip, desc_ip_id,
        desc_udp_sport, desc_opcode, desc_ack_req,
        desc_dest_qp, desc_psn, desc_reth_va, desc_reth_rkey, desc_reth_len,
        desc_imm, desc_payload_len
    }),
    .s_valid(desc_valid && desc_fifo_room),
    .s_ready(desc_fifo_s_ready),
    .m_data({
        fifo_desc_dst_mac, fifo_desc_dst_ip, fifo_desc_ip_id,
        fifo_desc_udp_sport, fifo_desc_opcode, fifo_desc_ack_req,
        fifo_desc_dest_qp, fifo_desc_psn, fifo_desc_reth_va, fifo_desc_reth_rkey, fifo_desc_reth_len,
        fifo_desc_imm, fifo_desc_payload_len
    }),
    .m_valid(fifo_desc_valid),
    .m_ready(fifo_desc_ready)
);

// ---------------------------------------------------------------------------
// TX: frame builder, ICRC

wire [DATA_WIDTH-1:0]  tx_frame_tdata;
wire [KEEP_WIDTH-1:0]  tx_frame_tkeep;
wire                   tx_frame_tvalid;
wire                   tx_frame_tready;
wire                   tx_frame_tlast;
wire                   tx_frame_tuser;

wire [DATA_WIDTH-1:0]  roce_tx_tdata;
wire [KEEP_WIDTH-1:0]  roce_tx_tkeep;
wire                   roce_tx_tvalid;
wire                   roce_tx_tready;
wire                   roce_tx_tlast;
wire                   roce_tx_tuser;

roce_tx_frame #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
tx_frame_inst (
    .clk(clk),
    .rst(rst),
    .s_desc_valid(fifo_desc_valid),
    .s_desc_ready(fifo_desc_ready),
    .s_desc_dst_mac(fifo_desc_dst_mac),
    .s_desc_src_mac(desc_src_mac),
    .s_desc_src_ip(desc_src_ip),
    .s_desc_dst_ip(fifo_desc_dst_ip),
    .s_desc_ip_id(fifo_desc_ip_id),
    .s_desc_tos(desc_tos),
    .s_desc_udp_sport(fifo_desc_udp_sport),
    .s_desc_opcode(fifo_desc_opcode),
    .s_desc_solicited(desc_solicited),
    .s_desc_ack_req(fifo_desc_ack_req),
    .s_desc_dest_qp(fifo_desc_dest_qp),
    .s_desc_psn(fifo_desc_psn),
    .s_desc_reth_va(fifo_desc_reth_va),
    .s_desc_reth_rkey(fifo_desc_reth_rkey),
    .s_desc_reth_len(fifo_desc_reth_len),
    .s_desc_imm(fifo_desc_imm),
    .s_desc_payload_len(fifo_desc_payload_len),
    .s_axis_tdata(s_mem_axis_tdata),
    .s_axis_tkeep(s_mem_axis_tkeep),
    .s_axis_tvalid(s_mem_axis_tvalid),
    .s_axis_tready(s_mem_axis_tready),
    .s_axis_tlast(s_mem_axis_tlast),
    .s_axis_tuser(s_mem_axis_tuser),
    .m_axis_tdata(tx_frame_tdata),
    .m_axis_tkeep(tx_frame_tkeep),
    .m_axis_tvalid(tx_frame_tvalid),
    .m_axis_tready(tx_frame_tready),
    .m_axis_tlast(tx_frame_tlast),
    .m_axis_tuser(tx_frame_tuser)
);

roce_icrc_insert #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
icrc_insert_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(tx_frame_tdata),
    .s_axis_tkeep(tx_frame_tkeep),
    .s_axis_tvalid(tx_frame_tvalid),
    .s_axis_tready(tx_frame_tready),
    .s_axis_tlast(tx_frame_tlast),
    .s_axis_tuser(tx_frame_tuser),
    .m_axis_tdata(roce_tx_tdata),
    .m_axis_tkeep(roce_tx_tkeep),
    .m_axis_tvalid(roce_tx_tvalid),
    .m_axis_tready(roce_tx_tready),
    .m_axis_tlast(roce_tx_tlast),
    .m_axis_tuser(roce_tx_tuser)
);

// ---------------------------------------------------------------------------
// TX arbiter: input 0 ARP, 1 CM, 2 RoCE (fixed priority)

wire [2:0] arb_tready;

assign arp_tx_tready = arb_tready[0];
assign cm_tx_tready = arb_tready[1];
assign roce_tx_tready = arb_tready[2];

axis_arb_mux #(
    .S_COUNT(3),
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROUND_ROBIN(0)
)
tx_arb_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata({roce_tx_tdata, cm_tx_tdata, arp_tx_tdata}),
    .s_axis_tkeep({roce_tx_tkeep, cm_tx_tkeep, arp_tx_tkeep}),
    .s_axis_tvalid({roce_tx_tvalid, cm_tx_tvalid, arp_tx_tvalid}),
    .s_axis_tready(arb_tready),
    .s_axis_tlast({roce_tx_tlast, cm_tx_tlast, arp_tx_tlast}),
    .s_axis_tuser({roce_tx_tuser, cm_tx_tuser, arp_tx_tuser}),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

endmodule

`default_nettype wire
`resetall
