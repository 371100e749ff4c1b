/*
 * roce_txgen: the built-in traffic generator, started by the CM frame's
 * txmeta fields (roce_cm m_txmeta_*), as in the original firmware.
 *
 * One engine per QP. A txmeta descriptor for QP q is taken when q's engine
 * is idle (s_txmeta_ready = !busy[s_txmeta_qp]); the engine then posts
 * n_transfers work requests (none when n_transfers is 0), message k
 * (k = 0 .. n_transfers-1):
 *   opcode      {tx_type, is_immediate}: 0 SEND, 1 SEND_IMM, 2 WRITE,
 *               3 WRITE_IMM (roce_req's encoding)
 *   length      dma_length
 *   remote_va   rem_base_addr of the QP (as roce_cm holds it when the
 *               descriptor is taken) + k * dma_length
 *   rkey        rem_rkey of the QP (taken with the descriptor)
 *   local_addr  cfg_base_addr + k * dma_length (cfg_base_addr as it is when
 *               the descriptor is taken)
 *   imm         k
 *   wr_id       {8'hF0, 8'(q), 16'd0, 32'(k)}: bit 63 set marks a WR of the
 *               generator in the completions
 * frequency f (0 = as fast as possible): a WR of the QP is loaded into the
 * output register at most once per f + 1 cycles.
 * An engine stops (the rest of its messages are dropped) when its QP leaves
 * RTS (qp_state != 3): a QP in error or closed gets nothing more.
 *
 * Output m_wr_*: round robin over the engines with a WR ready; the output is
 * a register (valid and every field), loaded when empty or taken.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_txgen #
(
    parameter N_QP = 4
)
(
    input  wire                       clk,
    input  wire                       rst,

    input  wire [63:0]                cfg_base_addr,

    /*
     * Per-QP state (roce_cm outputs)
     */
    input  wire [3*N_QP-1:0]          qp_state,
    input  wire [32*N_QP-1:0]         qp_rem_rkey,
    input  wire [64*N_QP-1:0]         qp_rem_base_addr,

    /*
     * Transfer start (roce_cm m_txmeta_*)
     */
    input  wire                       s_txmeta_valid,
    output wire                       s_txmeta_ready,
    input  wire [$clog2(N_QP)-1:0]    s_txmeta_qp,
    input  wire                       s_txmeta_is_immediate,
    input  wire                       s_txmeta_tx_type,
    input  wire [31:0]                s_txmeta_dma_length,
    input  wire [31:0]                s_txmeta_n_transfers,
    input  wire [31:0]                s_txmeta_frequency,

    /*
     * Work requests (roce_req s_wr_*)
     */
    output wire                       m_wr_valid,
    input  wire                       m_wr_ready,
    output wire [$clog2(N_QP)-1:0]    m_wr_qp,
    output wire [1:0]                 m_wr_opcode,
    output wire [63:0]                m_wr_local_addr,
    output wire [31:0]                m_wr_length,
    output wire [63:0]                m_wr_remote_va,
    output wire [31:0]                m_wr_rkey,
    output wire [31:0]                m_wr_imm,
    output wire [63:0]                m_wr_wr_id,

    /*
     * Status: engines running
     */
    output wire [N_QP-1:0]            busy
);

localparam QPW = $clog2(N_QP);
localparam [2:0] ST_RTS = 3'd3;

initial begin
    // the QP index is a port of $clog2(N_QP) bits and 8 bits of wr_id
    if (N_QP < 2 || N_QP > 256) begin
        $error("Error: N_QP must be 2..256 (instance %m)");
        $finish;
    end
end

// per-engine state
reg [N_QP-1:0]  busy_reg = {N_QP{1'b0}};
reg [1:0]       opcode_reg [0:N_QP-1];
reg [31:0]      length_reg [0:N_QP-1];
reg [31:0]      left_reg [0:N_QP-1];            // messages still to post
reg [31:0]      index_reg [0:N_QP-1];           // index of the next message
reg [63:0]      offset_reg [0:N_QP-1];          // index * dma_length
reg [63:0]      remote_base_reg [0:N_QP-1];     // rem_base_addr
reg [63:0]      local_base_reg [0:N_QP-1];      // cfg_base_addr
reg [31:0]      rkey_reg [0:N_QP-1];
reg [31:0]      frequency_reg [0:N_QP-1];
reg [31:0]      gap_reg [0:N_QP-1];             // cycles still to wait

// output register
reg             m_wr_valid_reg = 1'b0;
reg [QPW-1:0]   m_wr_qp_reg = {QPW{1'b0}};
reg [1:0]       m_wr_opcode_reg = 2'd0;
reg [63:0]      m_wr_local_addr_reg = 64'd0;
reg [31:0]      m_wr_length_reg = 32'd0;
reg [63:0]      m_wr_remote_va_reg = 64'd0;
reg [31:0]      m_wr_rkey_reg = 32'd0;
reg [31:0]      m_wr_imm_reg = 32'd0;
reg [63:0]      m_wr_wr_id_reg = 64'd0;

reg [QPW-1:0]   last_served_reg = {QPW{1'b0}};   // engine served last

integer i;
reg [QPW:0] k;

initial begin
    for (i = 0; i < N_QP; i = i + 1) begin
        opcode_reg[i] = 2'd0;
        length_reg[i] = 32'd0;
        left_reg[i] = 32'd0;
        index_reg[i] = 32'd0;
        offset_reg[i] = 64'd0;
        remote_base_reg[i] = 64'd0;
        local_base_reg[i] = 64'd0;
        rkey_reg[i] = 32'd0;
        frequency_reg[i] = 32'd0;
        gap_reg[i] = 32'd0;
    end
end

// engines with a WR ready
reg [N_QP-1:0] engine_ready;
always @* begin
    for (i = 0; i < N_QP; i = i + 1)
        engine_ready[i] = busy_reg[i] && left_reg[i] != 32'd0 && gap_reg[i] == 32'd0 &&
                          qp_state[3*i +: 3] == ST_RTS;
end

// round robin pick: the first ready engine after last_served_reg
reg [QPW-1:0] pick;
reg           pick_valid;
always @* begin
    pick = {QPW{1'b0}};
    pick_valid = 1'b0;
    for (i = N_QP; i >= 1; i = i - 1) begin
        k = {1'b0, last_served_reg} + i[QPW:0];
        if (k >= N_QP[QPW:0])
            k = k - N_QP[QPW:0];
        if (engine_ready[k[QPW-1:0]]) begin
            pick = k[QPW-1:0];
            pick_valid = 1'b1;
        end
    end
end

wire out_free = !m_wr_valid_reg || m_wr_ready;
wire load = out_free && pick_valid;
wire txmeta_go = s_txmeta_valid && s_txmeta_ready;

assign s_txmeta_ready = !busy_reg[s_txmeta_qp];

assign m_wr_valid = m_wr_valid_reg;
assign m_wr_qp = m_wr_qp_reg;
assign m_wr_opcode = m_wr_opcode_reg;
assign m_wr_local_addr = m_wr_local_addr_reg;
assign m_wr_length = m_wr_length_reg;
assign m_wr_remote_va = m_wr_remote_va_reg;
assign m_wr_rkey = m_wr_rkey_reg;
assign m_wr_imm = m_wr_imm_reg;
assign m_wr_wr_id = m_wr_wr_id_reg;
assign busy = busy_reg;

always @(posedge clk) begin
    if (m_wr_valid_reg && m_wr_ready)
        m_wr_valid_reg <= 1'b0;

    for (i = 0; i < N_QP; i = i + 1) begin
        if (busy_reg[i] && gap_reg[i] != 32'd0)
            gap_reg[i] <= gap_reg[i] - 32'd1;
        // done, or the QP left RTS
        if (busy_reg[i] && (left_reg[i] == 32'd0 || qp_state[3*i +: 3] != ST_RTS))
            busy_reg[i] <= 1'b0;
    end

    if (load) begin
        m_wr_valid_reg <= 1'b1;
        m_wr_qp_reg <= pick;
        m_wr_opcode_reg <= opcode_reg[pick];
        m_wr_local_addr_reg <= local_base_reg[pick] + offset_reg[pick];
        m_wr_length_reg <= length_reg[pick];
        m_wr_remote_va_reg <= remote_base_reg[pick] + offset_reg[pick];
        m_wr_rkey_reg <= rkey_reg[pick];
        m_wr_imm_reg <= index_reg[pick];
        m_wr_wr_id_reg <= {8'hF0, {(8-QPW){1'b0}}, pick, 16'd0, index_reg[pick]};
        last_served_reg <= pick;
        left_reg[pick] <= left_reg[pick] - 32'd1;
        index_reg[pick] <= index_reg[pick] + 32'd1;
        offset_reg[pick] <= offset_reg[pick] + {32'd0, length_reg[pick]};
        gap_reg[pick] <= frequency_reg[pick];
    end

    if (txmeta_go) begin
        busy_reg[s_txmeta_qp] <= 1'b1;
        opcode_reg[s_txmeta_qp] <= {s_txmeta_tx_type, s_txmeta_is_immediate};
        length_reg[s_txmeta_qp] <= s_txmeta_dma_length;
        left_reg[s_txmeta_qp] <= s_txmeta_n_transfers;
        index_reg[s_txmeta_qp] <= 32'd0;
        offset_reg[s_txmeta_qp] <= 64'd0;
        remote_base_reg[s_txmeta_qp] <= qp_rem_base_addr[64*s_txmeta_qp +: 64];
        local_base_reg[s_txmeta_qp] <= cfg_base_addr;
        rkey_reg[s_txmeta_qp] <= qp_rem_rkey[32*s_txmeta_qp +: 32];
        frequency_reg[s_txmeta_qp] <= s_txmeta_frequency;
        gap_reg[s_txmeta_qp] <= 32'd0;
    end

    if (rst) begin
        busy_reg <= {N_QP{1'b0}};
        m_wr_valid_reg <= 1'b0;
        last_served_reg <= {QPW{1'b0}};
        for (i = 0; i < N_QP; i = i + 1) begin
            left_reg[i] <= 32'd0;
            gap_reg[i] <= 32'd0;
        end
    end
end

endmodule

`default_nettype wire
`resetall
