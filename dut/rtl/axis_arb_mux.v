/*
 * axis_arb_mux: frame-atomic AXI-Stream arbiter of S_COUNT inputs onto one
 * output.
 *
 * Inputs are concatenated: input i in bits [DATA_WIDTH*i +: DATA_WIDTH] (and
 * likewise for tkeep, one bit per input for tvalid / tready / tlast / tuser).
 * Arbitration is at frame boundaries only: once a frame's first beat has
 * gone, its input keeps the output until the beat with tlast has gone.
 * Between frames the winner is the lowest-numbered input with tvalid
 * (fixed priority: input 0 first) when ROUND_ROBIN is 0, or the first input
 * with tvalid after the one that sent the last frame when ROUND_ROBIN is 1.
 * The grant is decided in the cycle the first beat is taken (no idle cycle
 * between frames).
 *
 * Output: a register stage with a skid register (verilog-ethernet style), so
 * m_axis_tready reaches no input combinationally; s_axis_tready comes from
 * registers and, between frames, from the inputs' tvalid (the pick), never
 * from m_axis_tready. One beat per clock.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_arb_mux #
(
    parameter S_COUNT = 3,
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    parameter ROUND_ROBIN = 0
)
(
    input  wire                           clk,
    input  wire                           rst,

    input  wire [S_COUNT*DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [S_COUNT*KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire [S_COUNT-1:0]             s_axis_tvalid,
    output wire [S_COUNT-1:0]             s_axis_tready,
    input  wire [S_COUNT-1:0]             s_axis_tlast,
    input  wire [S_COUNT-1:0]             s_axis_tuser,

    output wire [DATA_WIDTH-1:0]          m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]          m_axis_tkeep,
    output wire                           m_axis_tvalid,
    input  wire                           m_axis_tready,
    output wire                           m_axis_tlast,
    output wire                           m_axis_tuser
);

localparam SW = S_COUNT > 1 ? $clog2(S_COUNT) : 1;

initial begin
    if (S_COUNT < 1) begin
        $error("Error: S_COUNT must be at least 1 (instance %m)");
        $finish;
    end
    if (DATA_WIDTH < 1 || KEEP_WIDTH < 1) begin
        $error("Error: DATA_WIDTH and KEEP_WIDTH must be at least 1 (instance %m)");
        $finish;
    end
end

// grant
reg            active_reg = 1'b0;
reg [SW-1:0]   grant_reg = {SW{1'b0}};
reg [SW-1:0]   last_grant_reg = {SW{1'b0}};   // input of the last frame (round robin)

reg [SW-1:0]   pick;
reg            pick_valid;
reg [SW-1:0]   sel;
reg            sel_valid;

integer i;
reg [SW:0] k;

always @* begin
    pick = {SW{1'b0}};
    pick_valid = 1'b0;
    if (ROUND_ROBIN != 0) begin
        // first valid input after last_grant_reg, wrapping
        for (i = S_COUNT; i >= 1; i = i - 1) begin
            k = {1'b0, last_grant_reg} + i[SW:0];
            if (k >= S_COUNT[SW:0])
                k = k - S_COUNT[SW:0];
            if (s_axis_tvalid[k[SW-1:0]]) begin
                pick = k[SW-1:0];
                pick_valid = 1'b1;
            end
        end
    end else begin
        for (i = S_COUNT-1; i >= 0; i = i - 1) begin
            if (s_axis_tvalid[i]) begin
                pick = i[SW-1:0];
                pick_valid = 1'b1;
            end
        end
    end
    sel = active_reg ? grant_reg : pick;
    sel_valid = active_reg ? s_axis_tvalid[grant_reg] : pick_valid;
end

// output stage with skid register
reg                   m_axis_tready_int_reg = 1'b0;

reg [DATA_WIDTH-1:0]  m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   m_axis_tvalid_reg = 1'b0;
reg                   m_axis_tlast_reg = 1'b0;
reg                   m_axis_tuser_reg = 1'b0;

reg [DATA_WIDTH-1:0]  temp_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0]  temp_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                   temp_tvalid_reg = 1'b0;
reg                   temp_tlast_reg = 1'b0;
reg                   temp_tuser_reg = 1'b0;

wire [DATA_WIDTH-1:0] in_tdata = s_axis_tdata[DATA_WIDTH*sel +: DATA_WIDTH];
wire [KEEP_WIDTH-1:0] in_tkeep = s_axis_tkeep[KEEP_WIDTH*sel +: KEEP_WIDTH];
wire                  in_tlast = s_axis_tlast[sel];
wire                  in_tuser = s_axis_tuser[sel];
wire                  in_go = sel_valid && m_axis_tready_int_reg;

wire m_axis_tready_int_early = m_axis_tready || (!temp_tvalid_reg && (!m_axis_tvalid_reg || !in_go));

genvar g;
generate
    for (g = 0; g < S_COUNT; g = g + 1) begin : g_ready
        assign s_axis_tready[g] = m_axis_tready_int_reg && (sel == g);
    end
endgenerate

assign m_axis_tdata = m_axis_tdata_reg;
assign m_axis_tkeep = m_axis_tkeep_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;
assign m_axis_tlast = m_axis_tlast_reg;
assign m_axis_tuser = m_axis_tuser_reg;

always @(posedge clk) begin
    // grant
    if (in_go) begin
        last_grant_reg <= sel;
        if (in_tlast) begin
            active_reg <= 1'b0;
        end else begin
            active_reg <= 1'b1;
            grant_reg <= sel;
        end
    end

    // output / skid
    m_axis_tready_int_reg <= m_axis_tready_int_early;
    if (m_axis_tready_int_reg) begin
        if (m_axis_tready || !m_axis_tvalid_reg) begin
            m_axis_tvalid_reg <= in_go;
            m_axis_tdata_reg <= in_tdata;
            m_axis_tkeep_reg <= in_tkeep;
            m_axis_tlast_reg <= in_tlast;
            m_axis_tuser_reg <= in_tuser;
        end else begin
            temp_tvalid_reg <= in_go;
            temp_tdata_reg <= in_tdata;
            temp_tkeep_reg <= in_tkeep;
            temp_tlast_reg <= in_tlast;
            temp_tuser_reg <= in_tuser;
        end
    end else if (m_axis_tready) begin
        m_axis_tvalid_reg <= temp_tvalid_reg;
        m_axis_tdata_reg <= temp_tdata_reg;
        m_axis_tkeep_reg <= temp_tkeep_reg;
        m_axis_tlast_reg <= temp_tlast_reg;
        m_axis_tuser_reg <= temp_tuser_reg;
        temp_tvalid_reg <= 1'b0;
    end

    if (rst) begin
        active_reg <= 1'b0;
        grant_reg <= {SW{1'b0}};
        last_grant_reg <= {SW{1'b0}};
        m_axis_tready_int_reg <= 1'b0;
        m_axis_tvalid_reg <= 1'b0;
        temp_tvalid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
`resetall
