// The unit square of unstructured triangles, periodic from left (x = 0) to right
// (x = 1): Gmsh's Periodic Curve puts the same nodes on both sides, so that kfvm joins
// them ([mesh] periodic = [["left", "right"]], apps/decks/periodic-gmsh.toml); walls at
// y = 0 and y = 1. Meshed by `gmsh -2 -format msh41 periodic-square.geo` into
// periodic-square.msh.
h = 0.06;
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {1, 1, 0, h};
Point(4) = {0, 1, 0, h};
Point(5) = {0.35, 0.6, 0, h / 3};  // a finer spot: cells of very different sizes
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {4, 3};
Line(4) = {1, 4};
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Point{5} In Surface{1};
Periodic Curve{2} = {4} Translate{1, 0, 0};
Physical Curve("left") = {4};
Physical Curve("right") = {2};
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Surface("domain") = {1};
