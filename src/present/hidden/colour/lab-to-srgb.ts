/**
 * CSS Color 4's lab(), lch(), oklab() and oklch() as sRGB: `color: oklch(100% 0 0)` is white text
 * as surely as `#fff`. Matrices from CSS Color 4 §18 (sample code); results are gamut-clipped.
 */

type Triple = [number, number, number];

const d50White: Triple = [0.3457 / 0.3585, 1, (1 - 0.3457 - 0.3585) / 0.3585];
const d50ToD65: Triple[] = [
  [0.9554734527042182, -0.023098536874261423, 0.0632593086610217],
  [-0.028369706963208136, 1.0099954580058226, 0.021041398966943008],
  [0.012314001688319899, -0.020507696433477912, 1.3303659366080753],
];
const xyzD65ToLinearSrgb: Triple[] = [
  [3.2409699419045226, -1.537383177570094, -0.4986107602930034],
  [-0.9692436362808796, 1.8759675015077202, 0.04155505740717559],
  [0.05563007969699366, -0.20397695888897652, 1.0569715142428786],
];

function multiply(matrix: Triple[], [x, y, z]: Triple): Triple {
  return matrix.map(([a, b, c]) => a * x + b * y + c * z) as Triple;
}

/** Linear-light sRGB (0..1) to 8-bit sRGB, clipped to the gamut. */
function encodeSrgb(linear: Triple): Triple {
  return linear.map((c) => {
    const v = Math.abs(c) <= 0.0031308 ? 12.92 * c : Math.sign(c) * (1.055 * Math.abs(c) ** (1 / 2.4) - 0.055);
    return Math.round(Math.min(1, Math.max(0, v)) * 255);
  }) as Triple;
}

/** CIE Lab (D50; L 0..100) to sRGB. */
export function labToSrgb(l: number, a: number, b: number): Triple {
  const kappa = 24389 / 27;
  const epsilon = 216 / 24389;
  const fy = (l + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const xyz: Triple = [
    (fx ** 3 > epsilon ? fx ** 3 : (116 * fx - 16) / kappa) * d50White[0],
    (l > kappa * epsilon ? fy ** 3 : l / kappa) * d50White[1],
    (fz ** 3 > epsilon ? fz ** 3 : (116 * fz - 16) / kappa) * d50White[2],
  ];
  return encodeSrgb(multiply(xyzD65ToLinearSrgb, multiply(d50ToD65, xyz)));
}

/** Oklab (L 0..1) to sRGB. */
export function oklabToSrgb(l: number, a: number, b: number): Triple {
  const lms: Triple = [
    l + 0.3963377774 * a + 0.2158037573 * b,
    l - 0.1055613458 * a - 0.0638541728 * b,
    l - 0.0894841775 * a - 1.291485548 * b,
  ];
  const [x, y, z] = lms.map((v) => v ** 3) as Triple;
  return encodeSrgb([
    4.0767416621 * x - 3.3077115913 * y + 0.2309699292 * z,
    -1.2684380046 * x + 2.6097574011 * y - 0.3413193965 * z,
    -0.0041960863 * x - 0.7034186147 * y + 1.707614701 * z,
  ]);
}

/** Linear-light sRGB (color(srgb-linear …)) to sRGB. */
export function linearToSrgb(r: number, g: number, b: number): Triple {
  return encodeSrgb([r, g, b]);
}
