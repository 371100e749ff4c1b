/*
 * roce_icrc_unstep: take `fill` trailing zero bytes back out of an ICRC
 * register (purely combinational).
 *
 * roce_icrc_core folds a partial beat as if its missing lanes were zero
 * bytes. A zero byte maps the (reflected CRC-32) register through an
 * invertible 32x32 GF(2) matrix M, so the register after the valid bytes
 * only is M^-fill applied to the core's output. fill is at most
 * KEEP_WIDTH-1, so this is FILL_WIDTH stages: stage k applies M^-(2^k) when
 * fill[k] is set. Each stage is 32 xor trees over the 32 register bits, the
 * matrices worked out at elaboration.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_unstep #
(
    // Width of the data bus in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    // tkeep width (one bit per byte)
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    // Width of the fill count (0..KEEP_WIDTH-1)
    parameter FILL_WIDTH = $clog2(KEEP_WIDTH)
)
(
    input  wire [31:0]            crc_in,
    input  wire [FILL_WIDTH-1:0]  fill,
    output wire [31:0]            crc_out
);

localparam [31:0] POLY = 32'hEDB88320;

initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || FILL_WIDTH < 1 || (1 << FILL_WIDTH) < KEEP_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 and FILL_WIDTH hold 0..KEEP_WIDTH-1 (instance %m)");
        $finish;
    end
end

// Undo n zero-bit steps (see roce_icrc_core).
function [31:0] unstep_bits(input [31:0] c, input integer n);
    integer k;
    begin
        unstep_bits = c;
        for (k = 0; k < n; k = k + 1) begin
            if (unstep_bits[31])
                unstep_bits = {unstep_bits[30:0] ^ POLY[30:0], 1'b1};
            else
                unstep_bits = {unstep_bits[30:0], 1'b0};
        end
    end
endfunction

// M^-nbytes, column j (the image of register bit j) at [32*j +: 32].
function [1023:0] unstep_matrix(input integer nbytes);
    integer j;
    begin
        for (j = 0; j < 32; j = j + 1)
            unstep_matrix[32*j +: 32] = unstep_bits(32'd1 << j, 8 * nbytes);
    end
endfunction

// Row idx of a matrix from unstep_matrix.
function [31:0] matrix_row(input [1023:0] m, input integer idx);
    integer j;
    begin
        for (j = 0; j < 32; j = j + 1)
            matrix_row[j] = m[32*j + idx];
    end
endfunction

genvar k, i;

generate

for (k = 0; k < FILL_WIDTH; k = k + 1) begin : step
    localparam [1023:0] MAT = unstep_matrix(1 << k);
    // the register with fill[k-1:0] zero bytes taken out, and fill[k:0]
    wire [31:0] x_in;
    wire [31:0] x_out;
    wire [31:0] back;

    if (k == 0) begin : first
        assign x_in = crc_in;
    end else begin : next
        assign x_in = step[k-1].x_out;
    end

    for (i = 0; i < 32; i = i + 1) begin : row
        localparam [31:0] ROW = matrix_row(MAT, i);
        assign back[i] = ^(x_in & ROW);
    end

    assign x_out = fill[k] ? back : x_in;
end

endgenerate

assign crc_out = step[FILL_WIDTH-1].x_out;

endmodule

`default_nettype wire
`resetall
