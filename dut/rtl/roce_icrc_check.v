/*
 * roce_icrc_check: check the ICRC of RoCEv2-over-IPv4 frames (RX).
 *
 * s_axis: Ethernet (untagged) / IPv4 (no options) / UDP / BTH / ... / pad /
 * ICRC (no FCS). m_axis: the same beats; tuser[0] of the last beat is set
 * when the ICRC is wrong, when the frame is shorter than the headers plus
 * the ICRC (14 + 20 + 8 + 12 + 4 = 58 bytes), or when s_axis_tuser was set.
 *
 * The ICRC is not located: the CRC runs over the ICRC bytes as well, and a
 * reflected CRC-32 over a message followed by its inverted CRC (LSB first)
 * always leaves the register at 0xDEBB20E3 (the Ethernet FCS residue).
 *
 * Pipeline, one beat per clock, no bubbles:
 *   stage 1 (roce_icrc_stage, shared with roce_icrc_insert): the accepted
 *     beat, and the ICRC register after it from roce_icrc_core (the only
 *     feedback path), the number of lanes the beat leaves out; here, whether
 *     the frame is too short.
 *   output (m_axis_*, registered): on a last beat roce_icrc_unstep (in the
 *     stage) takes the zero fill of the missing lanes back out and the
 *     register is compared with the residue.
 * Latency: 2 cycles from s_axis to m_axis. s_axis_tready depends on
 * m_axis_tready combinationally (one gate).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_check #
(
    // Width of AXI stream interfaces in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    // tkeep signal width (words per cycle)
    parameter KEEP_WIDTH = DATA_WIDTH/8
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * AXI input: frame with ICRC
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    /*
     * AXI output: the same frame, tuser set on the last beat if bad
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire                   m_axis_tuser
);

localparam FILL_WIDTH = $clog2(KEEP_WIDTH);

// register after a frame and its ICRC
localparam [31:0] RESIDUE = 32'hDEBB20E3;
// shortest frame holding Ethernet, IPv4, UDP and BTH headers and the ICRC
localparam [7:0] MIN_BYTES = 8'd58;
localparam [7:0] KEEP_BYTES = KEEP_WIDTH[7:0];

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
end

// stage 1 (roce_icrc_stage), and whether its frame is shorter than MIN_BYTES
// up to the end of its beat
wire                  s1_valid;
wire                  s1_take;
wire [DATA_WIDTH-1:0] s1_tdata;
wire [KEEP_WIDTH-1:0] s1_tkeep;
wire                  s1_tlast;
wire                  s1_tuser;
wire [FILL_WIDTH-1:0] s1_fill;
wire [31:0]           s1_crc;
wire [FILL_WIDTH-1:0] s_fill;
reg                   s1_short_reg = 1'b0;
// bytes of this frame before the beat at s_axis, saturating at MIN_BYTES
reg [7:0]             byte_count_reg = 8'd0;

// output register
reg                   m_axis_tvalid_reg = 1'b0;
reg [DATA_WIDTH-1:0]  m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   m_axis_tlast_reg = 1'b0;
reg                   m_axis_tuser_reg = 1'b0;

// handshakes
wire out_ready = !m_axis_tvalid_reg || m_axis_tready;
wire s_go = s_axis_tvalid && s_axis_tready;

assign s1_take = s1_valid && out_ready;

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tuser = m_axis_tuser_reg;

roce_icrc_stage #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .FILL_WIDTH(FILL_WIDTH)
)
stage_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .s_fill(s_fill),
    .s1_valid(s1_valid),
    .s1_take(s1_take),
    .s1_tdata(s1_tdata),
    .s1_tkeep(s1_tkeep),
    .s1_tlast(s1_tlast),
    .s1_tuser(s1_tuser),
    .s1_fill(s1_fill),
    .s1_crc(s1_crc)
);

// the stage's fill is only needed here at s_axis (the byte count)
wire unused_fill = ^s1_fill;

// bytes up to and including the beat at s_axis (tkeep is full on all but the last)
wire [7:0] byte_count_next = byte_count_reg + KEEP_BYTES - {{8-FILL_WIDTH{1'b0}}, s_fill};

wire bad = s1_crc != RESIDUE || s1_short_reg;

always @(posedge clk) begin
    // stage 1: the frame's length so far
    if (s_go) begin
        s1_short_reg <= byte_count_next < MIN_BYTES;
        if (s_axis_tlast) begin
            byte_count_reg <= 8'd0;
        end else begin
            byte_count_reg <= byte_count_next < MIN_BYTES ? byte_count_next : MIN_BYTES;
        end
    end

    // output
    if (m_axis_tready) begin
        m_axis_tvalid_reg <= 1'b0;
    end
    if (s1_take) begin
        m_axis_tvalid_reg <= 1'b1;
        m_axis_tdata_reg <= s1_tdata;
        m_axis_tkeep_reg <= s1_tkeep;
        m_axis_tlast_reg <= s1_tlast;
        m_axis_tuser_reg <= s1_tuser || (s1_tlast && bad);
    end

    if (rst) begin
        byte_count_reg <= 8'd0;
        m_axis_tvalid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
`resetall
