/*
 * sync_fifo: a first-in first-out queue of DATA_WIDTH-bit words, one clock.
 *
 * In: s_data / s_valid / s_ready; out: m_data / m_valid / m_ready (a word
 * moves when valid and ready are both high at a rising edge). The words come
 * out in the order they went in, each exactly once.
 *
 * Storage: a memory of DEPTH words (a power of 2, at least 2; distributed RAM
 * on an FPGA: written at one address, read at another, no reset) and the
 * output register m_data, so the FIFO holds up to DEPTH + 1 words. Every
 * output comes from a register or from the pointers alone: s_ready is "the
 * memory is not full", m_valid / m_data are registers; no combinational path
 * from an input port to an output port. A word taken at a clock edge into an
 * empty FIFO is in the memory after it and in the output register after the
 * next one (two cycles from s_valid to m_valid); with both sides ready one
 * word per cycle goes in and one comes out.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module sync_fifo #
(
    // Width of a word
    parameter DATA_WIDTH = 64,
    // Words in the memory (a power of 2, at least 2); the FIFO holds one more
    // in its output register
    parameter DEPTH = 16
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Input
     */
    input  wire [DATA_WIDTH-1:0]  s_data,
    input  wire                   s_valid,
    output wire                   s_ready,

    /*
     * Output
     */
    output wire [DATA_WIDTH-1:0]  m_data,
    output wire                   m_valid,
    input  wire                   m_ready
);

localparam AW = DEPTH > 1 ? $clog2(DEPTH) : 1;

initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) begin
        $error("Error: DEPTH must be a power of 2, at least 2 (instance %m)");
        $finish;
    end
    if (DATA_WIDTH < 1) begin
        $error("Error: DATA_WIDTH must be at least 1 (instance %m)");
        $finish;
    end
end

reg [DATA_WIDTH-1:0] mem[0:DEPTH-1];

// pointers with one extra bit: equal = empty, equal but the top bit = full
reg [AW:0] wr_ptr_reg = {AW+1{1'b0}};
reg [AW:0] rd_ptr_reg = {AW+1{1'b0}};

reg                  m_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0] m_data_reg = {DATA_WIDTH{1'b0}};

wire full = wr_ptr_reg == (rd_ptr_reg ^ {1'b1, {AW{1'b0}}});
wire empty = wr_ptr_reg == rd_ptr_reg;

// a word goes into the memory; one goes from the memory to the output register
wire write = s_valid && !full;
wire read = !empty && (!m_valid_reg || m_ready);

assign s_ready = !full;
assign m_valid = m_valid_reg;
assign m_data = m_data_reg;

// memory: no reset
always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[AW-1:0]] <= s_data;
    end
end

always @(posedge clk) begin
    if (read) begin
        m_data_reg <= mem[rd_ptr_reg[AW-1:0]];
    end
end

always @(posedge clk) begin
    if (write) begin
        wr_ptr_reg <= wr_ptr_reg + {{AW{1'b0}}, 1'b1};
    end
    if (read) begin
        rd_ptr_reg <= rd_ptr_reg + {{AW{1'b0}}, 1'b1};
        m_valid_reg <= 1'b1;
    end else if (m_ready) begin
        m_valid_reg <= 1'b0;
    end

    if (rst) begin
        wr_ptr_reg <= {AW+1{1'b0}};
        rd_ptr_reg <= {AW+1{1'b0}};
        m_valid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
`resetall
