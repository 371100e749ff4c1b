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
 *   stage 1 (s1_*): the accepted beat, and the ICRC register after it from
 *     roce_icrc_core (the only feedback path), the number of lanes the beat
 *     leaves out and whether the frame is too short.
 *   output (m_axis_*, registered): on a last beat roce_icrc_unstep takes the
 *     zero fill of the missing lanes back out and the register is compared
 *     with the residue.
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

localparam BEAT_WIDTH = $clog2((47+KEEP_WIDTH-1)/KEEP_WIDTH+1);
localparam FILL_WIDTH = $clog2(KEEP_WIDTH);

// register after a frame and its ICRC
localparam [31:0] RESIDUE = 32'hDEBB20E3;
// shortest frame holding Ethernet, IPv4, UDP and BTH headers and the ICRC
localparam [7:0] MIN_BYTES = 8'd58;
localparam [7:0] KEEP_BYTES = KEEP_WIDTH[7:0];

// stage 1
reg                   s1_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0]  s1_data_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  s1_keep_reg = {KEEP_WIDTH{1'b0}};
reg                   s1_last_reg = 1'b0;
reg                   s1_user_reg = 1'b0;
reg                   s1_short_reg = 1'b0;
reg [31:0]            s1_crc_reg = 32'd0;
reg [FILL_WIDTH-1:0]  s1_fill_reg = {FILL_WIDTH{1'b0}};
reg [BEAT_WIDTH-1:0]  beat_reg = {BEAT_WIDTH{1'b0}};
// bytes of this frame before the current beat, saturating at MIN_BYTES
reg [7:0]             count_reg = 8'd0;

// output register
reg                   m_axis_tvalid_reg = 1'b0;
reg [DATA_WIDTH-1:0]  m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   m_axis_tlast_reg = 1'b0;
reg                   m_axis_tuser_reg = 1'b0;

wire [31:0]           crc_next;
wire [FILL_WIDTH-1:0] fill_next;
wire [31:0]           crc_final;

// handshakes
wire out_ready = !m_axis_tvalid_reg || m_axis_tready;
wire s1_go = s1_valid_reg && out_ready;
wire s_go = s_axis_tvalid && s_axis_tready;

assign s_axis_tready = !s1_valid_reg || out_ready;

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tuser = m_axis_tuser_reg;

roce_icrc_core #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .BEAT_WIDTH(BEAT_WIDTH),
    .FILL_WIDTH(FILL_WIDTH)
)
core_inst (
    .crc_in(s1_crc_reg),
    .beat(beat_reg),
    .tdata(s_axis_tdata),
    .tkeep(s_axis_tkeep),
    .crc_out(crc_next),
    .fill(fill_next)
);

roce_icrc_unstep #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .FILL_WIDTH(FILL_WIDTH)
)
unstep_inst (
    .crc_in(s1_crc_reg),
    .fill(s1_fill_reg),
    .crc_out(crc_final)
);

// bytes up to and including this beat (tkeep is full on all but the last)
wire [7:0] count_next = count_reg + KEEP_BYTES - {{8-FILL_WIDTH{1'b0}}, fill_next};

wire bad = crc_final != RESIDUE || s1_short_reg;

always @(posedge clk) begin
    // stage 1
    if (s1_go) begin
        s1_valid_reg <= 1'b0;
    end
    if (s_go) begin
        s1_valid_reg <= 1'b1;
        s1_data_reg <= s_axis_tdata;
        s1_keep_reg <= s_axis_tkeep;
        s1_last_reg <= s_axis_tlast;
        s1_user_reg <= s_axis_tuser;
        s1_short_reg <= count_next < MIN_BYTES;
        s1_crc_reg <= crc_next;
        s1_fill_reg <= fill_next;
        if (s_axis_tlast) begin
            beat_reg <= {BEAT_WIDTH{1'b0}};
            count_reg <= 8'd0;
        end else begin
            if (beat_reg != {BEAT_WIDTH{1'b1}}) begin
                beat_reg <= beat_reg + 1'b1;
            end
            count_reg <= count_next < MIN_BYTES ? count_next : MIN_BYTES;
        end
    end

    // output
    if (m_axis_tready) begin
        m_axis_tvalid_reg <= 1'b0;
    end
    if (s1_go) begin
        m_axis_tvalid_reg <= 1'b1;
        m_axis_tdata_reg <= s1_data_reg;
        m_axis_tkeep_reg <= s1_keep_reg;
        m_axis_tlast_reg <= s1_last_reg;
        m_axis_tuser_reg <= s1_user_reg || (s1_last_reg && bad);
    end

    if (rst) begin
        s1_valid_reg <= 1'b0;
        beat_reg <= {BEAT_WIDTH{1'b0}};
        count_reg <= 8'd0;
        m_axis_tvalid_reg <= 1'b0;
    end
end

endmodule

`resetall
