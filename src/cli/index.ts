import { runProcess } from './main.js';

void runProcess();
