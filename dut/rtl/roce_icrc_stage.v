/*
 * roce_icrc_stage: the first pipeline stage of roce_icrc_insert and
 * roce_icrc_check, the ICRC datapath they share.
 *
 * Takes one beat of a RoCEv2-over-IPv4 frame per clock from s_axis into the
 * stage register (s1_*), with the ICRC register after it from roce_icrc_core
 * (the loop stage register -> core -> stage register is the only feedback
 * path) and the number of lanes the beat leaves out. s1_crc is that register
 * with roce_icrc_unstep taking the zero fill of the missing lanes back out:
 * on a last beat, the ICRC register after the frame's bytes (combinational
 * from the stage register; not inverted).
 *
 * The next stage takes the stage register with s1_take (which must only be
 * high with s1_valid); s_axis_tready is !s1_valid || s1_take, so one beat per
 * clock goes through with no bubbles, and s_axis_tready depends on s1_take
 * combinationally. s_fill is the fill of the beat at s_axis (for a parent that
 * counts the frame's bytes).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_stage #
(
    // Width of AXI stream interfaces in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    // tkeep signal width (words per cycle)
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    // Width of the fill counts (0..KEEP_WIDTH-1)
    parameter FILL_WIDTH = $clog2(KEEP_WIDTH)
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * AXI input
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,
    // lanes the beat at s_axis leaves out
    output wire [FILL_WIDTH-1:0]  s_fill,

    /*
     * Stage register
     */
    output wire                   s1_valid,
    input  wire                   s1_take,
    output wire [DATA_WIDTH-1:0]  s1_tdata,
    output wire [KEEP_WIDTH-1:0]  s1_tkeep,
    output wire                   s1_tlast,
    output wire                   s1_tuser,
    // lanes the beat leaves out
    output wire [FILL_WIDTH-1:0]  s1_fill,
    // ICRC register after the frame's bytes up to the end of this beat
    output wire [31:0]            s1_crc
);

// beat index in the frame, saturating: it must reach past frame offset 46
localparam BEAT_WIDTH = $clog2((47+KEEP_WIDTH-1)/KEEP_WIDTH+1);

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if (FILL_WIDTH < 1 || (1 << FILL_WIDTH) < KEEP_WIDTH) begin
        $error("Error: FILL_WIDTH must hold 0..KEEP_WIDTH-1 (instance %m)");
        $finish;
    end
end

reg                   s1_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0]  s1_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  s1_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   s1_tlast_reg = 1'b0;
reg                   s1_tuser_reg = 1'b0;
// ICRC register after this beat and s1_fill zero bytes
reg [31:0]            s1_crc_reg = 32'd0;
reg [FILL_WIDTH-1:0]  s1_fill_reg = {FILL_WIDTH{1'b0}};
// index of the beat at s_axis in its frame
reg [BEAT_WIDTH-1:0]  beat_reg = {BEAT_WIDTH{1'b0}};

wire [31:0]           crc_next;
wire [FILL_WIDTH-1:0] fill_next;

wire s_go = s_axis_tvalid && s_axis_tready;

assign s_axis_tready = !s1_valid_reg || s1_take;
assign s_fill = fill_next;

assign s1_valid = s1_valid_reg;
assign s1_tdata = s1_tdata_reg;
assign s1_tkeep = s1_tkeep_reg;
assign s1_tlast = s1_tlast_reg;
assign s1_tuser = s1_tuser_reg;
assign s1_fill = s1_fill_reg;

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
    .crc_out(s1_crc)
);

always @(posedge clk) begin
    if (s1_take) begin
        s1_valid_reg <= 1'b0;
    end
    if (s_go) begin
        s1_valid_reg <= 1'b1;
        s1_tdata_reg <= s_axis_tdata;
        s1_tkeep_reg <= s_axis_tkeep;
        s1_tlast_reg <= s_axis_tlast;
        s1_tuser_reg <= s_axis_tuser;
        s1_crc_reg <= crc_next;
        s1_fill_reg <= fill_next;
        if (s_axis_tlast) begin
            beat_reg <= {BEAT_WIDTH{1'b0}};
        end else if (beat_reg != {BEAT_WIDTH{1'b1}}) begin
            beat_reg <= beat_reg + 1'b1;
        end
    end

    if (rst) begin
        s1_valid_reg <= 1'b0;
        beat_reg <= {BEAT_WIDTH{1'b0}};
    end
end

endmodule

`default_nettype wire
`resetall
