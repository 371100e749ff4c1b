/*
 * roce_icrc_insert: append the ICRC to RoCEv2-over-IPv4 frames (TX).
 *
 * s_axis: Ethernet (untagged) / IPv4 (no options) / UDP / BTH / ... / pad,
 * without ICRC (and without FCS). m_axis: the same bytes followed by the 4
 * ICRC bytes, least significant byte first. The ICRC goes into the free lanes
 * of the last beat; only when fewer than 4 lanes are free does the frame get
 * one more beat (then the input is held for one cycle while that beat goes
 * out: the next frame's first beat waits in stage 1, its second beat at
 * s_axis).
 *
 * Pipeline, one beat per clock:
 *   stage 1 (roce_icrc_stage, shared with roce_icrc_check): the accepted
 *     beat, and the ICRC register after it from roce_icrc_core (the loop
 *     register -> core -> register is the only feedback path), plus the
 *     number of lanes the beat leaves out.
 *   output (m_axis_*, registered): on a last beat roce_icrc_unstep (in the
 *     stage) takes the zero fill of the missing lanes back out of the
 *     register, and the inverted result is written into the 4 lanes after
 *     the data (and, if they do not all fit, into the extra beat).
 * Latency: 2 cycles from s_axis to m_axis. s_axis_tready depends on
 * m_axis_tready combinationally (no logic beyond a few gates).
 *
 * s_axis_tuser on the last beat (bad frame) is passed to the last beat out.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_insert #
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
     * AXI input: frame without ICRC
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    /*
     * AXI output: frame with ICRC
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire                   m_axis_tuser
);

localparam FILL_WIDTH = $clog2(KEEP_WIDTH);

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

// stage 1 (roce_icrc_stage)
wire                  s1_valid;
wire                  s1_take;
wire [DATA_WIDTH-1:0] s1_tdata;
wire [KEEP_WIDTH-1:0] s1_tkeep;
wire                  s1_tlast;
wire                  s1_tuser;
wire [FILL_WIDTH-1:0] s1_fill;
wire [31:0]           s1_crc;
wire [FILL_WIDTH-1:0] s_fill;

// output register and the extra beat holding ICRC bytes that did not fit
reg                   m_axis_tvalid_reg = 1'b0;
reg [DATA_WIDTH-1:0]  m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   m_axis_tlast_reg = 1'b0;
reg                   m_axis_tuser_reg = 1'b0;

reg                   extra_valid_reg = 1'b0;
reg [31:0]            extra_data_reg = 32'd0;
reg [3:0]             extra_keep_reg = 4'd0;
reg                   extra_user_reg = 1'b0;

// handshakes
wire out_ready = !m_axis_tvalid_reg || m_axis_tready;
wire extra_go = extra_valid_reg && out_ready;

assign s1_take = s1_valid && out_ready && !extra_valid_reg;

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

// the fill of the beat at s_axis, and the top bits of stage 1's (n mod 4 is
// all that is needed), are not needed here
wire unused_fill = ^{s_fill, s1_fill[FILL_WIDTH-1:2]};

wire [31:0] icrc = ~s1_crc;

// pos[n]: the last beat holds n bytes (lanes 0..n-1), n = 0..KEEP_WIDTH
wire [KEEP_WIDTH:0] pos = {s1_tkeep, 1'b1} & ~{1'b0, s1_tkeep};

// ICRC byte k goes to lane n+k of KEEP_WIDTH+4 "extended" lanes (lanes
// KEEP_WIDTH.. are the extra beat). KEEP_WIDTH is a multiple of 4, so lane e
// can only ever take ICRC byte (e - n) mod 4: rotate the ICRC left by n mod 4
// bytes once, and lane e takes byte e mod 4 of that when n <= e <= n+3. Per
// lane that is one 8-bit 2:1 mux, not a 4:1 byte select.
wire [1:0] n_mod4 = 2'd0 - s1_fill[1:0];
reg [31:0] icrc_rot;

always @* begin
    case (n_mod4)
        2'd0: icrc_rot = icrc;
        2'd1: icrc_rot = {icrc[23:0], icrc[31:24]};
        2'd2: icrc_rot = {icrc[15:0], icrc[31:16]};
        default: icrc_rot = {icrc[7:0], icrc[31:8]};
    endcase
end

wire [8*(KEEP_WIDTH+4)-1:0] ext_data;
wire [KEEP_WIDTH+3:0] ext_keep;

genvar e;

generate

for (e = 0; e < KEEP_WIDTH + 4; e = e + 1) begin : lane
    // lane e holds the ICRC when n is in e-3..e
    localparam LO = e >= 3 ? e - 3 : 0;
    localparam HI = e <= KEEP_WIDTH ? e : KEEP_WIDTH;
    wire hit = s1_tlast && |pos[HI:LO];

    if (e < KEEP_WIDTH) begin : data
        assign ext_data[8*e +: 8] = hit ? icrc_rot[8*(e%4) +: 8] : s1_tdata[8*e +: 8];
        assign ext_keep[e] = s1_tkeep[e] || hit;
    end else begin : extra
        assign ext_data[8*e +: 8] = icrc_rot[8*(e%4) +: 8];
        assign ext_keep[e] = hit;
    end
end

endgenerate

// the ICRC does not fit in the last beat: n > KEEP_WIDTH-4
wire spill = ext_keep[KEEP_WIDTH];

always @(posedge clk) begin
    if (m_axis_tready) begin
        m_axis_tvalid_reg <= 1'b0;
    end
    if (extra_go) begin
        m_axis_tvalid_reg <= 1'b1;
        m_axis_tdata_reg <= {{DATA_WIDTH-32{1'b0}}, extra_data_reg};
        m_axis_tkeep_reg <= {{KEEP_WIDTH-4{1'b0}}, extra_keep_reg};
        m_axis_tlast_reg <= 1'b1;
        m_axis_tuser_reg <= extra_user_reg;
        extra_valid_reg <= 1'b0;
    end else if (s1_take) begin
        m_axis_tvalid_reg <= 1'b1;
        m_axis_tdata_reg <= ext_data[DATA_WIDTH-1:0];
        m_axis_tkeep_reg <= ext_keep[KEEP_WIDTH-1:0];
        m_axis_tlast_reg <= s1_tlast && !spill;
        m_axis_tuser_reg <= s1_tuser && !spill;
        extra_valid_reg <= spill;
        extra_data_reg <= ext_data[8*KEEP_WIDTH +: 32];
        extra_keep_reg <= ext_keep[KEEP_WIDTH +: 4];
        extra_user_reg <= s1_tuser;
    end

    if (rst) begin
        m_axis_tvalid_reg <= 1'b0;
        extra_valid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
`resetall
