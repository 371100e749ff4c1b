/*
 * axis_frame_fifo: a store-and-forward FIFO of whole AXI-Stream frames, in
 * front of a MAC that cannot wait in the middle of a frame.
 *
 * A 100G MAC (Xilinx CMAC) needs every beat of a frame in the cycle it asks
 * for it: a cycle with tvalid low inside a frame is an underrun (tx_unfout)
 * and the frame goes out broken. Upstream, the payload comes from a memory
 * that stalls when it will (DRAM refresh, bus arbitration), so no amount of
 * holding back the header makes the stream gap-free. This FIFO lets a frame
 * out only when its last beat is in: from then on every beat is here, and
 * m_axis_tvalid stays high from a frame's first beat to its last.
 *
 * DEPTH words of {tuser, tlast, tkeep, tdata}, a simple dual-port RAM with a
 * registered read (block RAM); DEPTH must hold the longest frame and should
 * hold two, so the next frame is in while one goes out. A frame longer than
 * DEPTH does not deadlock: when the FIFO is full of one unfinished frame, it
 * is let out as it is (cut-through, with the gaps that may bring).
 *
 * Latency: 2 cycles from a frame's last input beat to its first output beat
 * (the commit register, the RAM read). s_axis_tready is a register's output;
 * m_axis_tready enables the RAM read (the output register is the RAM's).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_frame_fifo #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    parameter DEPTH = 1024
)
(
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire                   m_axis_tuser
);

localparam ADDR_WIDTH = $clog2(DEPTH);
localparam WORD_WIDTH = DATA_WIDTH + KEEP_WIDTH + 2;

initial begin
    if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: DATA_WIDTH a multiple of 8, KEEP_WIDTH = DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if (DEPTH < 2 || (1 << ADDR_WIDTH) != DEPTH) begin
        $error("Error: DEPTH must be a power of 2, at least 2 (instance %m)");
        $finish;
    end
end

reg [WORD_WIDTH-1:0] mem[(2**ADDR_WIDTH)-1:0];

// one more bit than the address: full and empty are told apart by it
reg [ADDR_WIDTH:0] wr_ptr_reg = {ADDR_WIDTH+1{1'b0}};
reg [ADDR_WIDTH:0] commit_ptr_reg = {ADDR_WIDTH+1{1'b0}};  // words of whole frames end here
reg [ADDR_WIDTH:0] rd_ptr_reg = {ADDR_WIDTH+1{1'b0}};

reg [WORD_WIDTH-1:0] out_reg = {WORD_WIDTH{1'b0}};
reg out_valid_reg = 1'b0;

wire full = wr_ptr_reg == (rd_ptr_reg ^ {1'b1, {ADDR_WIDTH{1'b0}}});
// the frame in the FIFO, unfinished, fills it: let it out (see above)
wire stuck = full && commit_ptr_reg == rd_ptr_reg;
wire readable = commit_ptr_reg != rd_ptr_reg;

wire write = s_axis_tvalid && !full;
wire read = readable && (!out_valid_reg || m_axis_tready);

assign s_axis_tready = !full;
assign {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_reg;
assign m_axis_tvalid = out_valid_reg;

always @(posedge clk) begin
    if (write) begin
        mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};
        wr_ptr_reg <= wr_ptr_reg + 1'b1;
    end
    if (write && s_axis_tlast) begin
        commit_ptr_reg <= wr_ptr_reg + 1'b1;
    end else if (stuck) begin
        commit_ptr_reg <= wr_ptr_reg;
    end

    if (read) begin
        out_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
        rd_ptr_reg <= rd_ptr_reg + 1'b1;
        out_valid_reg <= 1'b1;
    end else if (m_axis_tready) begin
        out_valid_reg <= 1'b0;
    end

    if (rst) begin
        wr_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        commit_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        rd_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        out_valid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
`resetall
